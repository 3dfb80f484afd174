import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/smartcar.ts';
import type { DecodeContext, HttpRequest } from '../../protocols/types.ts';

const ctx: DecodeContext = { now: Date.UTC(2025, 0, 1), transport: 'http', config: {}, session: {} };
const post = (body: unknown): HttpRequest => ({ method: 'POST', uri: '/', headers: { 'content-type': 'application/json' }, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) });
const meta = { fetchedAt: 1731940328000, oemUpdatedAt: 1731940330000 };
const EVENT = {
  eventType: 'VEHICLE_STATE',
  vehicleId: '9af1324f-c44f-4846-a65b-f72fce04f929',
  meta: { deliveredAt: 1731940433067 },
  data: {
    signals: [
      { code: 'location-preciselocation', body: { latitude: 37.4292, longitude: -122.1381 }, meta },
      { code: 'tractionbattery-stateofcharge', body: { value: 78, unit: 'percent' }, meta },
      { code: 'charge-voltage', body: { value: 240, unit: 'volt' }, meta },
      { code: 'odometer-traveleddistance', body: { value: 12.5, unit: 'km' }, meta },
    ],
  },
};

describe('smartcar replies', () => {
  it('answers 200 to an event, 400 to a body without a vehicle', () => {
    expect(protocol.decodeHttp!(post(EVENT), ctx).status).toBe(200);
    expect(protocol.decodeHttp!(post('[1]'), ctx)).toEqual({ status: 400 });
    expect(protocol.decodeHttp!(post('{'), ctx)).toEqual({ status: 400 });
  });
});

describe('smartcar decoding', () => {
  it('takes the vehicle id, the precise location at its OEM time and the value signals', () => {
    expect(protocol.decodeHttp!(post(EVENT), ctx)).toEqual({
      deviceId: EVENT.vehicleId,
      status: 200,
      records: [{ time: 1731940330000, valid: true, lat: 37.4292, lng: -122.1381, attributes: { batteryLevel: 78, power: 240, odometer: 12500 } }],
    });
  });
  it('keeps an event without location as a status record at the delivery time', () => {
    const r = protocol.decodeHttp!(post({ ...EVENT, data: { signals: EVENT.data.signals.slice(1, 2) } }), ctx);
    expect(r.records).toEqual([{ time: 1731940433067, attributes: { batteryLevel: 78 } }]);
  });
});
