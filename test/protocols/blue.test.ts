import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/blue.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const ALARM = 'aa0056860080e3e79e0c811f80000114020207170520011f00407f8005ee1938113b270000000000000000140202071705005ac7a621121f0002000100b7000080110000000000001a3a0000000001f400000000000078';
const ASKS = 'aa0055860080e3e79e0b840f800010320000000020010f0040008005ee197f113b26e800000000000000130c11091a2b005ac7a621120f0002000000b7000002000000000000001a3a0000000001f40000000000003f';

describe('blue replies', () => {
  // Not confirmed by a public document: the 0xA4 answer, as the widely used open-source server sends it.
  it('answers an 0x84 entry with an 0xA4 entry naming its index, XOR-checked', () => {
    expect(decode(ASKS).reply!.toString('hex')).toBe('aa000b860006a4000f000020');
  });
  it('sends nothing for packets without an 0x84 entry', () => {
    expect(decode(ALARM).reply).toBeUndefined();
  });
});

describe('blue decoding', () => {
  it('reads location, alarm and status entries into one record', () => {
    const r = decode(ALARM);
    expect(r.deviceId).toBe('2162419614');
    expect(r.records![0]).toEqual({ attributes: { alarm: 'sos', ignition: false, status: 32785 }, valid: true, lat: 15.31076, lng: 44.19997333333333, speed: 0, course: 0, time: 1580628185000 });
  });
  it('frames by the length after the start byte', () => {
    expect(protocol.createFramer!().next(Buffer.from(ALARM + 'aa', 'hex'))!.consumed).toBe(ALARM.length / 2);
  });
});
