import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/valtrack.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'http', config: {}, session: {} });

describe('valtrack', () => {
  it('answers 200 and stores each entry at the time of arrival', () => {
    const body = Buffer.from(JSON.stringify({ resource: [{ devid: '869731054075783', etype: 'G_PING', lat: '42.5', lon: '17.1', vbat: '12.263848', speed: '' }] }));
    const r = protocol.decodeHttp!({ method: 'POST', uri: '/', headers: {}, body }, ctx());
    expect(r).toMatchObject({ status: 200, deviceId: '869731054075783' });
    expect(r.records).toEqual([{ deviceId: '869731054075783', time: Date.UTC(2026, 0, 1), valid: true, lat: 42.5, lng: 17.1, attributes: { power: 12.263848, event: 'G_PING' } }]);
  });
});
