import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/opengts.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'http', config: {}, session: {} });
const get = (uri: string) => protocol.decodeHttp!({ method: 'GET', uri, headers: {}, body: Buffer.alloc(0) }, ctx());

describe('opengts', () => {
  it('answers 200 to a named device with its RMC fix, altitude and battery', () => {
    const r = get('/?id=123456789012345&batt=80&alt=160.5&gprmc=$GPRMC,191555,A,5025.46624,N,3030.39937,E,1.5,90.0,200218,,*2F');
    expect(r.status).toBe(200);
    expect(r.deviceId).toBe('123456789012345');
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2018-02-20T19:15:55.000Z');
    expect(p).toMatchObject({ valid: true, altitude: 160.5, course: 90, attributes: { batteryLevel: 80 } });
    expect(p.lat).toBeCloseTo(50.424437, 6);
  });
  it('answers 400 without an id or with an unreadable RMC', () => {
    expect(get('/?gprmc=$GPRMC,191555,A,5025.46624,N,3030.39937,E,0.0,0.0,200218,,*2F')).toEqual({ status: 400 });
    expect(get('/?id=1&gprmc=junk')).toEqual({ status: 400 });
  });
});
