import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/leafspy.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'http', config: {}, session: {} });
const get = (uri: string) => protocol.decodeHttp!({ method: 'GET', uri, headers: {}, body: Buffer.alloc(0) }, ctx());

describe('leafspy', () => {
  it('answers "status":"0" and decodes the car values', () => {
    const r = get('/?user=driver&pass=123456&Lat=60.0&Long=30.0&Elv=5&SOC=99.99&Odo=10000&ChrgMode=0&VIN=ZE0-000000&RPM=1260&BatTemp=15.2&PwrSw=1');
    expect(r).toMatchObject({ status: 200, body: '"status":"0"', deviceId: '123456' });
    expect(r.records).toEqual([
      { time: Date.UTC(2026, 0, 1), valid: true, lat: 60, lng: 30, altitude: 5, speed: 20, attributes: { driverUniqueId: 'driver', batteryLevel: 99.99, obdOdometer: 10000000, charge: false, vin: 'ZE0-000000', rpm: 1260, BatTemp: 15.2, PwrSw: 1 } },
    ]);
  });
  it('answers 400 without the device field', () => {
    expect(get('/?Lat=60.0&Long=30.0')).toEqual({ status: 400 });
  });
});
