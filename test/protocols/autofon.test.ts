import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/autofon.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (deviceId?: string): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {}, deviceId });
const decode = (h: string, id?: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx(id));

describe('autofon replies', () => {
  // Not confirmed by a public document: `resp_crc=` + the login's checksum byte, as the widely used
  // open-source server answers.
  it('answers a login with resp_crc= and its last byte', () => {
    const r = decode('10556103592310314825728f');
    expect(r.deviceId).toBe('359231031482572');
    expect(r.reply!.toString('hex')).toBe(Buffer.from('resp_crc=').toString('hex') + '8f');
    expect(decode('41035151305289931441139602662095148807').reply!.subarray(-1).toString('hex')).toBe('07');
  });
});

describe('autofon decoding', () => {
  it('reads a 4.5 location: hemisphere bits, time and date as decimal numbers', () => {
    const [f] = decode('023e00001e004d411efa01772f185285009c48041f1e366c2961380f26b10b00911c', '1').records!;
    expect(f.time).toBe(Date.UTC(2010, 0, 27, 4, 0, 8));
    expect(f.lat).toBeCloseTo(54.73838, 5);
    expect(f.lng).toBeCloseTo(56.10343, 5);
  });
  it('reads a location with its cell', () => {
    const [f] = decode('111e00000000000000000100007101010b0c020302010b0c0005a053ffffffff02010b0c00276047ffffffff1f5600fa000176f218c7850c0b0b0c203a033dbd46035783ef009e00320014ffff45', '1').records!;
    expect(f.cells![0]).toEqual({ mcc: 250, mnc: 1, lac: 30450, cid: 6343, rssi: 86 });
    expect(f).toMatchObject({ valid: true, satellites: 5, time: Date.UTC(2011, 10, 12, 12, 32, 58) });
  });
  it('frames by type and refuses an unknown type', () => {
    expect(protocol.createFramer!().next(Buffer.from('10556103592310314825728f10', 'hex'))!.consumed).toBe(12);
    expect(() => protocol.createFramer!().next(Buffer.from('ff', 'hex'))).toThrow();
  });
});
