import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/naviset.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (deviceId?: string): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {}, deviceId });
const decode = (h: string, id?: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx(id));
const HEADER = '1310e4073836383230343030353935383436362a060716';
const DATA = '14501a2000a50c0955a64b5db8a92503fc2cf603000084ab';

describe('naviset replies', () => {
  // Not confirmed by a public document: 0x01 + the packet's CRC, as the widely used open-source server answers.
  it('answers every packet with 01 and its CRC', () => {
    expect(decode(HEADER).reply!.toString('hex')).toBe('010716');
    expect(decode(DATA, '1').reply!.toString('hex')).toBe('0184ab');
  });
});

describe('naviset decoding', () => {
  it('takes the IMEI from the header packet', () => {
    expect(decode(HEADER).deviceId).toBe('868204005958466');
  });
  it('reads a data record with no blocks', () => {
    expect(decode(DATA, '1').records).toEqual([{ attributes: { index: 3237, status: 9 }, valid: true, time: 1565238869000, lat: 52.799928, lng: 66.46502, speed: 0 }]);
    expect(decode(DATA).records).toBeUndefined();
  });
  it('frames by the 12-bit length', () => {
    expect(protocol.createFramer!().next(Buffer.from(HEADER + '14', 'hex'))!.consumed).toBe(HEADER.length / 2);
  });
});
