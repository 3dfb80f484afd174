import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/aplicom/index.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (config = {}): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config, session: {} });
const decodeHex = (h: string, c = ctx()) => protocol.decode!(Buffer.from(h, 'hex'), c);
const D_SHORT_ID = '440129d684002b0700c0450ef906450ef90603b20b8003b20b80066465b3870ce30f010ce30ce300003b130300000bcb170a';
const D_IMEI = '44c3014645e8e91b66002300a21f0b01f056d3e62856d3e626031f845f00c6ee440800000000000000000017bd1cb30000';
const F = '46c30144f667c1711f00340007ff750058b8f77701037c06b8000000330033000000000b760000425e0100640000b3a90185d5823155000131070204000219641004';

describe('aplicom replies', () => {
  it('answers nothing: the units expect no acknowledgement (D, E, F and H)', () => {
    for (const h of [D_SHORT_ID, D_IMEI, F]) expect(decodeHex(h).reply).toBeUndefined();
  });
});

describe('aplicom decoding', () => {
  it('protocol D with a 24-bit unit id: the TC65 IMEI, the default selector fields', () => {
    const r = decodeHex(D_SHORT_ID);
    expect(r.deviceId).toBe('355632002225796');
    const [f] = r.records!;
    expect(f).toMatchObject({ valid: true, time: 0x450ef906 * 1000, lat: 62, lng: 62, satellites: 6, speed: 100, course: 358 });
    expect(f.attributes).toMatchObject({ event: 7, input: 135, adc1: 3299, adc2: 3841, trip1: 15123, output: 3 });
  });
  it('protocol D with a full IMEI and a selector', () => {
    const r = decodeHex(D_IMEI);
    expect(r.deviceId).toBe('358741050989414');
    expect(r.records![0]).toMatchObject({ valid: true, lat: 52.397151, lng: 13.037124, satellites: 8 });
  });
  it('protocol F (CAN/FMS): rpm, hours in ms, odometer, fuel; on the last known location', () => {
    const c = ctx();
    decodeHex(D_IMEI, c);
    const [f] = decodeHex(F, c).records!;
    expect(f.attributes).toMatchObject({ rpm: 892, engineTemp: 51, hours: 2934 * 3_600_000, fuel: 100, fuelUsed: 45993, odometer: 25548162, obdSpeed: 49 });
    expect(f).toMatchObject({ valid: false, lat: 52.397151 });
  });
});

describe('aplicom framer', () => {
  it('skips the alive digits and cuts by the length field', () => {
    const frame = Buffer.from(D_IMEI, 'hex');
    const stream = Buffer.concat([Buffer.from('357300700923336'), frame, frame]);
    expect(protocol.createFramer!().next(stream)).toEqual({ frame, consumed: 15 + frame.length });
    expect(protocol.createFramer!().next(frame.subarray(0, 20))).toBeNull();
    expect(() => protocol.createFramer!().next(Buffer.from('1'.repeat(40)))).toThrow(FrameError);
  });
});
