/** flespi over the gateway's HTTP listener, real sockets: 200 after the batch is stored, 404 for an unknown device. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ FSM_FLESPI_PORT: '0' });
});
afterAll(() => s.close());

const stored = (deviceId: string) => s.sql.prepare('SELECT COUNT(*) FROM fixes f JOIN sources s ON s.id = f.source_id WHERE s.device_id = ?').pluck().get(deviceId) as number;
const url = () => `http://127.0.0.1:${s.running.gateway.ports.flespi.http}/`;
const message = (ident: string, secondsAgo: number) => ({ ident, timestamp: Math.floor(Date.now() / 1000) - secondsAgo, 'position.latitude': 53.9, 'position.longitude': 27.45, 'position.speed': 10 });

describe('flespi over HTTP', () => {
  it('stores a batch and answers 200', async () => {
    const owner = await s.user('flespi@example.com');
    s.addTracker(owner.id, '605630', { protocol: 'flespi' });
    const res = await fetch(url(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([message('605630', 120), message('605630', 60)]) });
    expect(res.status).toBe(200);
    expect(stored('605630')).toBe(2);
  });
  it('answers 404 for an unknown ident and 400 for a body that is not an array; nothing stored', async () => {
    expect((await fetch(url(), { method: 'POST', body: JSON.stringify([message('999999', 30)]) })).status).toBe(404);
    expect((await fetch(url(), { method: 'POST', body: '{"ident":"605630"}' })).status).toBe(400);
    expect(stored('999999')).toBe(0);
    expect(stored('605630')).toBe(2);
  });
});
