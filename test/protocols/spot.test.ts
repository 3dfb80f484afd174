import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/spot.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'http', config: {}, session: {} });
const message = (esn: string, lat: number) =>
  `<message><id>1</id><esnName>${esn}</esnName><messageType>NEWMOVEMENT</messageType><timestamp>2017-12-27T13:19:38.000Z</timestamp><latitude>${lat}</latitude><longitude>-99.5</longitude></message>`;

describe('spot', () => {
  it('answers 200 and stores each message under its own device', () => {
    const body = Buffer.from(`<?xml version="1.0"?><messageList><header><totalCount>2</totalCount></header>${message('0-1', 19.5)}${message('0-2', 20.5)}</messageList>`);
    const r = protocol.decodeHttp!({ method: 'POST', uri: '/', headers: {}, body }, ctx());
    expect(r.status).toBe(200);
    expect(r.records).toEqual([
      { deviceId: '0-1', time: Date.UTC(2017, 11, 27, 13, 19, 38), valid: true, lat: 19.5, lng: -99.5, attributes: { event: 'NEWMOVEMENT' } },
      { deviceId: '0-2', time: Date.UTC(2017, 11, 27, 13, 19, 38), valid: true, lat: 20.5, lng: -99.5, attributes: { event: 'NEWMOVEMENT' } },
    ]);
  });
});
