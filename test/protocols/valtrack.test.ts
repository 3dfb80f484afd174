import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/valtrack.ts';
import type { DecodeContext, HttpRequest } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 0, 1);
const ctx: DecodeContext = { now: NOW, transport: 'http', config: {}, session: {} };
const post = (body: unknown): HttpRequest => ({ method: 'POST', uri: '/', headers: { 'content-type': 'application/json' }, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) });
const item = (lat: string, lon: string) => ({ devid: '869731054075783', etype: 'G_PING', lat, lon, vbat: '12.263848', speed: '', ncsq: '16,99' });

describe('valtrack replies', () => {
  it('answers 200 to a body with items, 400 to one without', () => {
    expect(protocol.decodeHttp!(post({ resource: [item('1.5', '2.5')] }), ctx).status).toBe(200);
    expect(protocol.decodeHttp!(post({ resource: [] }), ctx)).toEqual({ status: 400 });
    expect(protocol.decodeHttp!(post('nope'), ctx)).toEqual({ status: 400 });
  });
});

describe('valtrack decoding', () => {
  it('makes one fix per item at arrival, with event, supply voltage and CSQ signal; 0/0 is not valid', () => {
    expect(protocol.decodeHttp!(post({ resource: [item('45.1', '-7.25'), item('0.000000', '0.000000')] }), ctx)).toEqual({
      deviceId: '869731054075783',
      status: 200,
      records: [
        { deviceId: '869731054075783', time: NOW, valid: true, lat: 45.1, lng: -7.25, attributes: { event: 'G_PING', power: 12.263848, rssi: 16 } },
        { deviceId: '869731054075783', time: NOW, valid: false, lat: 0, lng: 0, attributes: { event: 'G_PING', power: 12.263848, rssi: 16 } },
      ],
    });
  });
});
