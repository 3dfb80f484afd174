import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/osmand.ts';
import { DecodeError, type DecodeContext, type HttpRequest } from '../../protocols/types.ts';

const NOW = Date.UTC(2024, 0, 1);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'http', config: {}, session: {} });
const get = (uri: string) => protocol.decodeHttp!({ method: 'GET', uri, headers: {}, body: Buffer.alloc(0) }, ctx());
const post = (body: string, headers: HttpRequest['headers'] = {}) =>
  protocol.decodeHttp!({ method: 'POST', uri: '/', headers, body: Buffer.from(body) }, ctx());

describe('osmand query parameters', () => {
  it('decodes a fix: knots to km/h, bearing, altitude, hdop, battery level', () => {
    const res = get('/?id=123456&timestamp=1377177267&lat=60.5&lon=-30.25&speed=10&bearing=90&altitude=12&hdop=1.5&accuracy=8&batt=87&ignition=true&rpm=933');
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();
    expect(res.deviceId).toBe('123456');
    expect(res.records).toEqual([
      { valid: true, time: 1377177267000, lat: 60.5, lng: -30.25, speed: 18.52, course: 90, altitude: 12, hdop: 1.5, precision: 8, attributes: { batteryLevel: 87, ignition: true, rpm: 933 } },
    ]);
  });

  it('reads timestamps in seconds, milliseconds, ISO and plain date-time', () => {
    const t = (v: string) => get(`/?id=1&lat=1&lon=1&timestamp=${v}`).records![0].time;
    expect(t('1442068686')).toBe(1442068686000);
    expect(t('1442068686579')).toBe(1442068686579);
    expect(t('2016-01-27T18%3A55%3A47Z')).toBe(Date.UTC(2016, 0, 27, 18, 55, 47));
    expect(t('2014-06-04+09%3A10%3A11')).toBe(Date.UTC(2014, 5, 4, 9, 10, 11));
  });

  it('answers 400 without identity', () => {
    expect(get('/?timestamp=1377177267&lat=60.0&lon=30.0')).toEqual({ status: 400 });
  });

  it('keeps cells and a missing fix as a status record', () => {
    const [r] = get('/?deviceid=7&cell=257,02,16,2223,-90').records!;
    expect(r.cells).toEqual([{ mcc: 257, mnc: 2, lac: 16, cid: 2223, rssi: -90 }]);
    expect(r.lat).toBeUndefined();
    expect(r.time).toBe(NOW);
  });

  it('reads a form-encoded POST body', () => {
    const res = post('id=5&lat=1.5&lon=2.5', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.deviceId).toBe('5');
    expect(res.records![0]).toMatchObject({ lat: 1.5, lng: 2.5 });
  });

  it('rejects malformed numbers with DecodeError', () => {
    expect(() => get('/?id=1&lat=north&lon=1')).toThrow(DecodeError);
    expect(() => get('/?id=1&lat=91&lon=1')).toThrow(DecodeError);
  });
});

describe('osmand JSON body', () => {
  const body = (coords: object, extra: object = {}) =>
    JSON.stringify({ location: { timestamp: '2021-07-21T08:06:34.444Z', coords, is_moving: true, odometer: 1200, battery: { level: 0.79, is_charging: true }, activity: { type: 'on_foot' }, extras: { shift: 'A', n: 3 }, ...extra }, device_id: '8737767034' });

  it('decodes coords in m/s and the phone state', () => {
    const res = post(body({ latitude: -6.1, longitude: 106.6, accuracy: 3.8, speed: 10, heading: 63, altitude: 35.7 }), { 'content-type': 'application/json' });
    expect(res.deviceId).toBe('8737767034');
    expect(res.records).toEqual([
      {
        valid: true,
        time: Date.UTC(2021, 6, 21, 8, 6, 34, 444),
        lat: -6.1,
        lng: 106.6,
        speed: 36,
        course: 63,
        altitude: 35.7,
        precision: 3.8,
        attributes: { motion: true, odometer: 1200, batteryLevel: 79, charge: true, activity: 'on_foot', shift: 'A', n: 3 },
      },
    ]);
  });

  it('ignores the -1 "unknown" values', () => {
    const [r] = post(body({ latitude: 1, longitude: 1, speed: -1, heading: -1 })).records!;
    expect(r.speed).toBeUndefined();
    expect(r.course).toBeUndefined();
  });

  it('accepts batched locations', () => {
    const loc = { timestamp: '2021-07-21T08:06:34Z', coords: { latitude: 1, longitude: 2 } };
    const res = post(JSON.stringify({ device_id: 'x', location: [loc, loc] }), { 'content-type': 'application/json' });
    expect(res.records).toHaveLength(2);
  });

  it('rejects a broken body with DecodeError and a body without device_id with 400', () => {
    expect(() => post('{"location":', { 'content-type': 'application/json' })).toThrow(DecodeError);
    expect(post('{"location":{}}', { 'content-type': 'application/json' })).toEqual({ status: 400 });
  });
});
