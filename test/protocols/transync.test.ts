import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/transync.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const FRAME = '3a3a2b583f086065705154043900801017050b11190f01623ef40887dff00000c25e9ff707000007152a2d0000000105004794916902050000100000050252ee060200822323';

describe('transync', () => {
  it('decodes the fixed part and the tags, and sends no answer', () => {
    const r = protocol.decode!(Buffer.from(FRAME, 'hex'), ctx());
    expect(r.deviceId).toBe('0860657051540439');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2023-05-11T17:25:15.000Z');
    expect(p).toMatchObject({ valid: true, lat: expect.closeTo(12.8977, 6), lng: expect.closeTo(79.5124533, 6), speed: 0, course: 194 });
    expect(p.attributes).toEqual({ out1: false, out2: false, in3: false, ignition: false, event: 0, rssi: 21, battery: 4, adc1: 0, odometer: 4691089, driverUniqueId: '0000100000', adc2: 21230, adc3: 130 });
  });

  it('frames through the tags up to ##', () => {
    const framer = protocol.createFramer!();
    const bytes = Buffer.from(FRAME + '3a3a', 'hex');
    expect(framer.next(bytes.subarray(0, 60))).toBeNull();
    expect(framer.next(bytes)?.frame.toString('hex')).toBe(FRAME);
  });
});
