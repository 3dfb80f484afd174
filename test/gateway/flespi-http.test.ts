/**
 * flespi over the gateway's HTTP listener, real sockets: 200 after the batch is stored, 404 for an unknown device;
 * a batch of several devices stores each message under its own device.
 */
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
  it('a batch of several devices: each message under its own ident; unknown and blocked idents are skipped, noted, and hold nothing back', async () => {
    const owner = await s.user('stream@example.com');
    s.addTracker(owner.id, '700001', { protocol: 'flespi' });
    s.addTracker(owner.id, '700002', { protocol: 'flespi' });
    s.addTracker(owner.id, '700004', { protocol: 'flespi' });
    s.store.trackers.setBlocked(s.sql.prepare('SELECT id FROM sources WHERE device_id = ?').pluck().get('700004') as number, true);
    s.running.gateway.core.registry.refresh();
    const batch = [message('700001', 90), message('700002', 80), message('700003', 70), message('700001', 60), message('700004', 50), message('700002', 40)];
    const res = await fetch(url(), { method: 'POST', body: JSON.stringify(batch) });
    expect(res.status).toBe(200);
    expect([stored('700001'), stored('700002'), stored('700003'), stored('700004')]).toEqual([2, 2, 0, 0]);
    const times = s.sql.prepare('SELECT f.time FROM fixes f JOIN sources s ON s.id = f.source_id WHERE s.device_id = ? ORDER BY f.time').pluck().all('700002') as number[];
    expect(times).toEqual([batch[1].timestamp * 1000, batch[5].timestamp * 1000]);
    await new Promise((r) => setTimeout(r, 1500)); // the unknown-device list is written once a second
    expect(s.sql.prepare("SELECT protocol FROM unknown_devices WHERE device_id = '700003'").pluck().all()).toEqual(['flespi']);
    // The first ident decides the request: unknown first answers 404 and stores nothing.
    expect((await fetch(url(), { method: 'POST', body: JSON.stringify([message('700003', 30), message('700001', 20)]) })).status).toBe(404);
    expect(stored('700001')).toBe(2);
  });
});
