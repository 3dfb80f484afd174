import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/outsafe.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'http', config: {}, session: {} });
const post = (body: object) => protocol.decodeHttp!({ method: 'POST', uri: '/', headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) }, ctx());

describe('outsafe', () => {
  it('answers 200 and decodes the position; a null time is the time of arrival', () => {
    const r = post({ device: '862061044762093', data: { cmd: 'GEO' }, time: null, latitude: 19.334734, longitude: -99.307236, altitude: 2000, heading: 10, rssi: 123 });
    expect(r.status).toBe(200);
    expect(r.records).toEqual([{ time: Date.UTC(2026, 0, 1), valid: true, lat: 19.334734, lng: -99.307236, altitude: 2000, course: 10, attributes: { rssi: 123, event: 'GEO' } }]);
  });
  it('answers 400 without a device', () => {
    expect(post({ latitude: 1, longitude: 2 })).toEqual({ status: 400 });
  });
});
