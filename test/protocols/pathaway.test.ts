import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/pathaway.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'http', config: {}, session: {} });
const get = (uri: string) => protocol.decodeHttp!({ method: 'GET', uri, headers: {}, body: Buffer.alloc(0) }, ctx());

describe('pathaway', () => {
  it('answers 200 with an empty body and decodes the $PWS location', () => {
    const r = get('?UserName=name&Password=pass&LOC=$PWS,1,"Roger",,,100107,122846,45.317270,-79.642219,45.00,42,1,"Comment",0*58');
    expect(r).toMatchObject({ status: 200, body: '', deviceId: 'name' });
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2007-01-10T12:28:46.000Z');
    expect(p).toMatchObject({ lat: 45.31727, lng: -79.642219, altitude: 45, course: 1 });
  });
  it('answers 400 without a user name', () => {
    expect(get('?LOC=$PWS,1,"Roger",,,100107,122846,45.317270,-79.642219,45.00,42,1,"Comment",0*58')).toEqual({ status: 400 });
  });
});
