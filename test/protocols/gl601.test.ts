import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/gl601.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (h: string, c = ctx()) => protocol.decode!(Buffer.from(h, 'hex'), c);
const FIX = '2b000048000861261070000944c031000c000031677e5c900049120052162900ed28bf02b5fcdf677e5c90000c0701610005e211550e0500559609010000314d800212630043d724';
const BATTERY = '2d000027000861261070000944c031000c000010677e5b50004120026105010f404a0000453a24';

describe('gl601 replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode(FIX).reply).toBeUndefined();
  });
});

describe('gl601 decoding', () => {
  it('reads a record with a full location item', () => {
    expect(decode(FIX)).toEqual({
      deviceId: '861261070000944',
      records: [{ attributes: { event: 0 }, valid: true, lng: 15.542463, lat: 45.481183, time: Date.UTC(2025, 0, 8, 11, 8, 0), speed: 1.2, hdop: 0.7, course: 353, altitude: 150.6, satellites: 17 }],
    });
  });
  it('reads a battery item; without a location the record is not valid at 0/0, then at the last fix', () => {
    expect(decode(BATTERY).records).toEqual([{ attributes: { event: 2, battery: 3.904, batteryLevel: 74 }, time: Date.UTC(2025, 0, 8, 11, 2, 40), lat: 0, lng: 0, valid: false }]);
    const c = ctx();
    decode(FIX, c);
    expect(decode(BATTERY, c).records![0]).toMatchObject({ lat: 45.481183, lng: 15.542463, valid: false });
  });
  it('frames on the whole-frame length at offset 2', () => {
    const bytes = Buffer.from(FIX, 'hex');
    const framer = protocol.createFramer!();
    expect(framer.next(bytes.subarray(0, 20))).toBeNull();
    expect(framer.next(Buffer.concat([bytes, bytes]))).toEqual({ frame: bytes, consumed: bytes.length });
  });
});
