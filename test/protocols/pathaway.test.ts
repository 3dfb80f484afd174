import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/pathaway.ts';
import type { DecodeContext, HttpRequest } from '../../protocols/types.ts';

const ctx: DecodeContext = { now: Date.UTC(2025, 0, 1), transport: 'http', config: {}, session: {} };
const get = (uri: string): HttpRequest => ({ method: 'GET', uri, headers: {}, body: Buffer.alloc(0) });
const URI = '/?UserName=name&Password=pass&LOC=$PWS,1,"Roger",,,100107,122846,45.317270,-79.642219,45.00,42,1,"Comment",0*58';

describe('pathaway replies', () => {
  it('answers 200 with no body to a report, 400 without a user name', () => {
    const r = protocol.decodeHttp!(get(URI), ctx);
    expect(r.status).toBe(200);
    expect(r.body).toBeUndefined();
    expect(protocol.decodeHttp!(get('/?LOC=x'), ctx)).toEqual({ status: 400 });
  });
});

describe('pathaway decoding', () => {
  it('reads the user name as the device and the $PWS fix', () => {
    expect(protocol.decodeHttp!(get(URI), ctx)).toEqual({
      deviceId: 'name',
      status: 200,
      records: [
        { time: Date.UTC(2007, 0, 10, 12, 28, 46), valid: true, lat: 45.31727, lng: -79.642219, altitude: 45, speed: 42, course: 1, attributes: { name: 'Roger', comment: 'Comment' } },
      ],
    });
  });
  it('takes a request without a sentence as a sign of life', () => {
    expect(protocol.decodeHttp!(get('/?UserName=name'), ctx)).toEqual({ deviceId: 'name', status: 200 });
  });
});
