import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/hyn600.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const REPORT = '2b5250543a0068560a4c081634280222030201000000011e0300000001ff01030100000000003c0329f6ec00644e9b07ea05060e29290d11000700cc000881500006e10d18000004a504d02200000000000000000000000000000000000007ea05060e2929046423';

describe('hyn600 replies', () => {
  it('sends nothing back (the devices expect no answer to reports)', () => {
    expect(decode(REPORT).reply).toBeUndefined();
  });
});

describe('hyn600 decoding', () => {
  it('reads the IMEI from decimal digit pairs and a report with its location, battery, cell and events', () => {
    const r = decode(REPORT);
    expect(r.deviceId).toBe('861076082252402');
    const [f] = r.records!;
    expect(f).toEqual({
      valid: true, hdop: 1, speed: 0, course: 0, altitude: 60, lat: 53.081836, lng: 6.573723, time: Date.UTC(2026, 4, 6, 14, 41, 41), satellites: 24,
      cells: [{ mcc: 204, mnc: 8, lac: 33104, cid: 450829, rssi: 24 }],
      attributes: { battery: 0, batteryLevel: 0, power: 12.32, ignition: true, motion: true, tripOdometer: 0, odometer: 0 },
    });
  });
  it('keeps only the identity of a command answer (+ACK:)', () => {
    expect(decode('2b41434b3a00265620260719624405215349532c303130422c2c302c07e906050f370b05a323')).toEqual({ deviceId: '863238072598685' });
  });
});
