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

/**
 * What today's phone clients send, byte for byte (facts from the clients' public sources and the
 * documentation of the OsmAnd HTTP protocol): the current client's JSON body (a background
 * geolocation library's location, with a `_` member that repeats id/lat/lon/timestamp as a query
 * string for servers that read the body as a form), its batch variant (several locations in one
 * `location` array), the iOS variant with unknown values as -1 and null, and the older Android
 * client's POST whose parameters travel as a form-encoded query with the speed in knots.
 */
describe('osmand: exact bodies of phone clients', () => {
  const JSON_HEADERS = { 'content-type': 'application/json' };
  const CURRENT =
    '{"location":{"timestamp":"2025-06-15T13:45:12.862Z","coords":{"latitude":37.4219983,"longitude":-122.084,"accuracy":5,"speed":0,"heading":-1,"altitude":5},"is_moving":false,"odometer":0,"event":"motionchange","battery":{"level":1,"is_charging":false},"activity":{"type":"still"},"extras":{},"_":"&id=48241179&lat=37.4219983&lon=-122.084&timestamp=2025-06-15T13:45:12.862Z&"},"device_id":"48241179"}';

  it('the current client: one location, m/s, battery 0..1, unknown heading -1', () => {
    const res = post(CURRENT, JSON_HEADERS);
    expect(res).toEqual({
      status: 200,
      deviceId: '48241179',
      records: [
        {
          valid: true,
          time: Date.UTC(2025, 5, 15, 13, 45, 12, 862),
          lat: 37.4219983,
          lng: -122.084,
          speed: 0,
          precision: 5,
          altitude: 5,
          attributes: { motion: false, odometer: 0, event: 'motionchange', batteryLevel: 100, charge: false, activity: 'still' },
        },
      ],
    });
  });

  it('the same body without a content type is still read as JSON', () => {
    expect(post(CURRENT).records).toEqual(post(CURRENT, JSON_HEADERS).records);
  });

  it('its batch variant: several locations in one body, in order', () => {
    const loc = (t: string, lat: number, speed: number) =>
      `{"timestamp":"${t}","coords":{"latitude":${lat},"longitude":13.405,"accuracy":8.5,"speed":${speed},"heading":181.5,"altitude":41.2},"is_moving":true,"odometer":1520.4,"event":"","battery":{"level":0.87,"is_charging":true},"activity":{"type":"in_vehicle"},"extras":{},"_":"&id=48241179&lat=${lat}&lon=13.405&timestamp=${t}&"}`;
    const body = `{"location":[${loc('2025-06-15T13:45:12.000Z', 52.52, 10)},${loc('2025-06-15T13:45:42.000Z', 52.523, 12.5)},${loc('2025-06-15T13:46:12.000Z', 52.526, 0)}],"device_id":"48241179"}`;
    const res = post(body, JSON_HEADERS);
    expect(res.deviceId).toBe('48241179');
    expect(res.records!.map((r) => [r.time, r.lat, r.speed, r.course])).toEqual([
      [Date.UTC(2025, 5, 15, 13, 45, 12), 52.52, 36, 181.5],
      [Date.UTC(2025, 5, 15, 13, 45, 42), 52.523, 45, 181.5],
      [Date.UTC(2025, 5, 15, 13, 46, 12), 52.526, 0, 181.5],
    ]);
    expect(res.records![0].attributes).toEqual({ motion: true, odometer: 1520.4, batteryLevel: 87, charge: true, activity: 'in_vehicle' });
  });

  it('the iOS variant: -1 and null mean unknown', () => {
    const body =
      '{"location":{"extras":{},"mock":true,"coords":{"speed_accuracy":-1,"speed":-1,"longitude":-122.406417,"ellipsoidal_altitude":0,"floor":null,"heading_accuracy":-1,"latitude":37.785834000000001,"accuracy":5,"altitude_accuracy":-1,"altitude":0,"heading":-1},"is_moving":false,"age":188,"odometer":0,"uuid":"2FB04C65-99CF-42AB-8DD3-EBCB4B108BF8","event":"motionchange","battery":{"level":-1,"is_charging":false},"activity":{"type":"unknown","confidence":100},"timestamp":"2025-05-09T04:11:30.579Z"},"device_id":"658765"}';
    const [r] = post(body, JSON_HEADERS).records!;
    expect(r).toEqual({
      valid: true,
      time: Date.UTC(2025, 4, 9, 4, 11, 30, 579),
      lat: 37.785834,
      lng: -122.406417,
      precision: 5,
      altitude: 0,
      attributes: { motion: false, odometer: 0, event: 'motionchange', charge: false, activity: 'unknown' },
    });
  });

  it('the Android client: POST with the parameters as a form-encoded query, speed in knots', () => {
    const uri = '/?id=48241179&timestamp=1718459112&lat=37.4219983&lon=-122.084&speed=10.5&bearing=273.4&altitude=12.0&accuracy=4.5&batt=87.0&charge=true';
    const res = protocol.decodeHttp!({ method: 'POST', uri, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '0' }, body: Buffer.alloc(0) }, ctx());
    expect(res).toEqual({
      status: 200,
      deviceId: '48241179',
      records: [{ valid: true, time: 1718459112000, lat: 37.4219983, lng: -122.084, speed: 19.446, course: 273.4, altitude: 12, precision: 4.5, attributes: { batteryLevel: 87, charge: true } }],
    });
  });

  it('the same parameters as a form-encoded body', () => {
    const body = 'id=48241179&timestamp=1718459112&lat=37.4219983&lon=-122.084&speed=10.5&bearing=273.4&altitude=12.0&accuracy=4.5&batt=87.0&charge=true';
    const [r] = post(body, { 'content-type': 'application/x-www-form-urlencoded' }).records!;
    expect(r).toMatchObject({ time: 1718459112000, lat: 37.4219983, lng: -122.084, speed: 19.446 });
  });
});
