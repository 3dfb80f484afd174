import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/ttnhttp.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2026, 0, 1);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'http', config: {}, session: {} });
const post = (body: object, c = ctx(), type = 'application/json') =>
  protocol.decodeHttp!({ method: 'POST', uri: '/', headers: { 'content-type': type }, body: Buffer.from(JSON.stringify(body)) }, c);
const uplink = (decoded: object | undefined, extra: object = {}) => ({
  end_device_ids: { device_id: 'test-device' },
  received_at: '2025-11-12T08:29:01.954236764Z',
  uplink_message: { f_port: 1, ...(decoded ? { decoded_payload: decoded } : {}), rx_metadata: [{ time: '2025-11-12T08:29:01.553412Z', rssi: -58 }], ...extra },
});

describe('ttnhttp', () => {
  it('decodes the formatter output (speed in knots, Cayenne temperatures, wifi) and answers 200', () => {
    const r = post(uplink({ latitude: 37.4219, longitude: -122.084, altitude: 44.5, sats: 11, hdop: 0.9, speed: 10, heading: 99, temperature_0: 30.1, humidity_0: 60.5, time: '2025-11-12T08:29:01.000Z', wifi: { 'A1:B2:C3:D4:E5:F6': { rssi: -10, channel: 1 } } }));
    expect(r.status).toBe(200);
    expect(r.deviceId).toBe('test-device');
    expect(r.records).toEqual([
      { time: Date.UTC(2025, 10, 12, 8, 29, 1), valid: true, lat: 37.4219, lng: -122.084, altitude: 44.5, satellites: 11, hdop: 0.9, speed: 18.52, course: 99, attributes: { temp1: 30.1, humidity_0: 60.5, wifi: 'a1:b2:c3:d4:e5:f6,-10' } },
    ]);
  });

  it('reads gps_<n> objects and takes the first gateway time when the payload has none', () => {
    const [p] = post(uplink({ gps_0: { latitude: 37.7858, longitude: -122.4064, altitude: 44.5 } })).records!;
    expect(p).toMatchObject({ time: Date.parse('2025-11-12T08:29:01.553Z'), lat: 37.7858, lng: -122.4064, altitude: 44.5, valid: true });
  });

  it('places a payload without a location at the last fix, not valid', () => {
    const c = ctx();
    post(uplink({ latitude: 1.5, longitude: 2.5 }), c);
    expect(post(uplink({ battery: 3.6 }), c).records![0]).toMatchObject({ lat: 1.5, lng: 2.5, valid: false, attributes: { battery: 3.6 } });
  });

  it('answers 200 without records for an uplink without decoded payload, 400 for other bodies', () => {
    expect(post(uplink(undefined))).toEqual({ deviceId: 'test-device', status: 200 });
    expect(post(uplink({ latitude: 1 }), ctx(), 'text/plain')).toEqual({ status: 400 });
    expect(post({ end_device_ids: { device_id: 'x' } })).toEqual({ status: 400 });
  });
});
