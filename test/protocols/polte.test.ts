import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/polte.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'http', config: {}, session: {} });
const post = (body: unknown) => protocol.decodeHttp!({ method: 'POST', uri: '/', headers: {}, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) }, ctx());

describe('polte replies', () => {
  it('answers 200 with an empty body, 400 without a ueToken', () => {
    expect(post({ ueToken: 'A', location: { detected_at: 1601556342, latitude: 29.7, longitude: -98.2 } })).toMatchObject({ status: 200, body: '' });
    expect(post({ ueToken: 'A' })).toEqual({ deviceId: 'A', status: 200, body: '' });
    expect(post({}).status).toBe(400);
    expect(post('x').status).toBe(400);
  });
});

describe('polte decoding', () => {
  it('reads the location and the report', () => {
    const r = post({ ueToken: 'ALT1', location: { detected_at: 1601556342, latitude: 29.77, longitude: -98.26, altitude: 1.5, confidence: 783.8 }, report: { event: 3, battery: { level: 100, voltage: 3.52 } } });
    expect(r.records).toEqual([{ time: 1601556342000, valid: true, lat: 29.77, lng: -98.26, altitude: 1.5, precision: 783.8, attributes: { event: 3, batteryLevel: 100, battery: 3.52 } }]);
  });
});
