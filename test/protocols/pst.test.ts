import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/pst.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (transport: 'tcp' | 'udp'): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport, config: {}, session: {} });
const decode = (h: string, transport: 'tcp' | 'udp' = 'tcp') => protocol.decode!(Buffer.from(h, 'hex'), ctx(transport));
const STATUS = '2faf9b4c0600000012054f36ec194000bfa9';
const FIX = '2faf97de06000024db0551380cbb08070b040000015a0c09b50177e5100a1822da0d010d0f0451380628101451380cc384b800488a84036901b202d3010001061103ffff00150203523687';

describe('pst replies', () => {
  // Not confirmed by a public document: the acknowledgement (id, version, index, 0x00, type, CRC-16/XMODEM)
  // as the widely used open-source server sends it. Its CRC is the one the devices use (checked on the captures).
  it('acknowledges every packet, in ( ) over TCP and bare over UDP', () => {
    expect(decode(STATUS, 'tcp').reply!.toString('hex')).toBe('282faf9b4c0600000012000579d229');
    expect(decode(STATUS, 'udp').reply!.toString('hex')).toBe('2faf9b4c0600000012000579d2');
  });
  it('escapes ( ) and 0x27 in what it sends over TCP', () => {
    const cmd = protocol.encode!({ type: 'engineStop', attributes: {} }, { deviceId: '40', now: 0, config: {}, transport: 'tcp' });
    expect(cmd.toString('hex').slice(0, 12)).toBe('280000002768');
  });
});

describe('pst decoding', () => {
  it('reads a status with its fix tag and battery', () => {
    const r = decode(FIX);
    expect(r.deviceId).toBe(String(0x2faf97de));
    const [f] = r.records!;
    expect(f).toEqual({
      time: Date.UTC(2020, 3, 28, 0, 51, 3), valid: true, lat: -20.133453333333332, lng: -44.86812166666667, speed: 1, course: 356, altitude: 723,
      attributes: { blocked: false, ignition: false, status: 8, batteryLevel: 65 },
    });
  });
  it('keeps nothing from a status without a fix', () => {
    expect(decode(STATUS).records).toEqual([]);
  });
  it('un-escapes frames', () => {
    expect(protocol.createFramer!().next(Buffer.from('2801276802296929', 'hex'))!.frame.toString('hex')).toBe('012802');
  });
});
