import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/spot.ts';
import type { DecodeContext, HttpRequest } from '../../protocols/types.ts';

const ctx: DecodeContext = { now: Date.UTC(2025, 0, 1), transport: 'http', config: {}, session: {} };
const post = (body: string): HttpRequest => ({ method: 'POST', uri: '/', headers: { 'content-type': 'application/xml' }, body: Buffer.from(body) });
const message = (esn: string, type: string, seconds: number) =>
  `<message>\n<esn>${esn}</esn>\n<messageType>${type}</messageType>\n<timeInGMTSecond>${seconds}</timeInGMTSecond>\n<latitude>-1.28781</latitude>\n<longitude>-47.93042</longitude>\n<batteryState>GOOD</batteryState>\n</message>`;
const feed = (...messages: string[]) => `<?xml version="1.0"?>\n<messageList>\n<header><totalCount>${messages.length}</totalCount></header>\n${messages.join('\n')}\n</messageList>`;

describe('spot replies', () => {
  it('answers 200 to a feed with messages, 400 to one without', () => {
    expect(protocol.decodeHttp!(post(feed(message('0-3112123', 'NEWMOVEMENT', 1514380778))), ctx).status).toBe(200);
    expect(protocol.decodeHttp!(post(feed()), ctx)).toEqual({ status: 400 });
  });
});

describe('spot decoding', () => {
  it('makes one fix per message, each under its own esn, with type, alarm and battery state', () => {
    const r = protocol.decodeHttp!(post(feed(message('0-3112123', 'NEWMOVEMENT', 1514380778), message('0-999', 'SOS', 1514380800))), ctx);
    expect(r.deviceId).toBe('0-3112123');
    expect(r.records).toEqual([
      { deviceId: '0-3112123', time: 1514380778000, valid: true, lat: -1.28781, lng: -47.93042, attributes: { event: 'NEWMOVEMENT', status: 'GOOD' } },
      { deviceId: '0-999', time: 1514380800000, valid: true, lat: -1.28781, lng: -47.93042, attributes: { event: 'SOS', alarm: 'sos', status: 'GOOD' } },
    ]);
  });
  it('stays fast on a body of unclosed tags', () => {
    const started = performance.now();
    expect(protocol.decodeHttp!(post('<message>'.repeat(20000)), ctx)).toEqual({ status: 400 });
    expect(performance.now() - started).toBeLessThan(100);
  });
});
