import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/smartcar.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (config = {}): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'http', config, session: {} });
const post = (body: unknown, config = {}) => protocol.decodeHttp!({ method: 'POST', uri: '/', headers: {}, body: Buffer.from(JSON.stringify(body)) }, ctx(config));

describe('smartcar replies', () => {
  // Smartcar webhook verification: the challenge signed with HMAC-SHA256 under the management token, hex
  // (checked here against the published HMAC-SHA256 test vector for key "key").
  it('answers VERIFY with the signed challenge, and 400 without the token setting', () => {
    const verify = { eventType: 'VERIFY', data: { challenge: 'The quick brown fox jumps over the lazy dog' } };
    expect(post(verify, { smartcarManagementToken: 'key' })).toEqual({ status: 200, body: '{"challenge":"f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"}' });
    expect(post(verify).status).toBe(400);
  });
  it('answers vehicle state with 200, other events too, and 400 without a vehicle id', () => {
    expect(post({ eventType: 'VEHICLE_ERROR' })).toEqual({ status: 200, body: '' });
    expect(post({ eventType: 'VEHICLE_STATE', data: { signals: [] } }).status).toBe(400);
  });
});

describe('smartcar decoding', () => {
  it('reads the signals with their units', () => {
    const body = {
      eventType: 'VEHICLE_STATE', vehicleId: 'v1', meta: { deliveredAt: 1731940433067 },
      data: { signals: [
        { code: 'location-preciselocation', body: { latitude: 37.4292, longitude: -122.1381 }, meta: { oemUpdatedAt: 1731940330000 } },
        { code: 'tractionbattery-stateofcharge', body: { value: 78, unit: 'percent' } },
        { code: 'odometer', body: { value: 10, unit: 'miles' } },
        { code: 'speed', body: { value: 50, unit: 'kilometers_per_hour' } },
        { code: 'charge-ischarging', body: { value: true } },
        { code: 'closure-islocked', body: { value: false } },
      ] },
    };
    expect(post(body).records![0]).toEqual({
      time: 1731940330000, valid: true, lat: 37.4292, lng: -122.1381, speed: 50,
      attributes: { batteryLevel: 78, odometer: 16093.44, charge: true, 'closure-islocked': false },
    });
  });
});
