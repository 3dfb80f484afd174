/**
 * Forwarding in Wialon IPS 2.0 and 1.1 (issue 13, docs/retranslators.md) over real sockets: trackers
 * send to our server's listener, the server forwards to a receiver written in the test
 * (wialon-receiver.ts), and round trip into a second instance of our server. Also: only fixes after
 * the binding, late fixes, a receiver that goes down and comes back, disable and enable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { serverWithWialon, track, Tracker, waitFor } from './helpers.ts';
import { WialonReceiver } from './wialon-receiver.ts';

let s: TestServer & { wialonPort: number };
let ann: { id: number; hash: string };
const cleanups: Array<() => unknown> = [];
beforeAll(async () => {
  s = await serverWithWialon();
  ann = await s.user('ann@example.com');
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await s?.close();
});

let imei = 860000000000000;
const T0 = Date.UTC(2026, 10, 20, 8, 0, 0);

async function receiver(version: '2.0' | '1.1', port = 0) {
  const r = new WialonReceiver(version);
  await r.start(port);
  cleanups.push(() => r.stop());
  return r;
}
async function retranslator(protocolId: number, port: number, o: Record<string, unknown> = {}) {
  const r = await s.call('retranslator/create', { hash: ann.hash, retranslator: { name: 'R', protocol_id: protocolId, address: '127.0.0.1', port, password: 'secret', enabled: true, ...o } });
  expect(r.body.success, JSON.stringify(r.body)).toBe(true);
  return r.body.id as number;
}
async function boundTracker(rid: number, fake?: string) {
  const deviceId = String(imei++);
  const tid = s.addTracker(ann.id, deviceId, { protocol: 'wialon' });
  expect((await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: tid, retranslator_id: rid, fake_device_id: fake })).body).toEqual({ success: true });
  const t = await Tracker.login(s.wialonPort, deviceId);
  cleanups.push(() => t.close());
  return { deviceId, tid, t };
}
const status = async (rid: number) => (await s.call('retranslator/list', { hash: ann.hash })).body.list.find((r: any) => r.id === rid).status;
const times = (list: Array<{ time: number }>) => list.map((r) => r.time);

describe('Wialon IPS 2.0', () => {
  it('logs in with the password, forwards every fix after the binding in order with valid CRCs, under the fake id', async () => {
    const rx = await receiver('2.0');
    const rid = await retranslator(1, rx.port);
    // a tracker's fixes before its binding are not forwarded
    const deviceId = String(imei++);
    const tid = s.addTracker(ann.id, deviceId, { protocol: 'wialon' });
    const t = await Tracker.login(s.wialonPort, deviceId);
    cleanups.push(() => t.close());
    await t.send(track(T0, 5));
    await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: tid, retranslator_id: rid, fake_device_id: 'CAR-1' });
    const fixes = track(T0, 60, 5).map((f, i) => ({ ...f, params: `fuel:2:${i + 0.5},door:3:open,count:1:${i}` }));
    await t.send(fixes);
    await waitFor('60 fixes', () => rx.units('CAR-1').length >= 60);
    expect(rx.logins[0]).toEqual({ version: '2.0', unit: 'CAR-1', password: 'secret' });
    expect(rx.crcErrors).toEqual([]);
    const got = rx.units('CAR-1');
    expect(times(got)).toEqual(times(fixes));
    expect(got[10].lat).toBeCloseTo(fixes[10].lat, 6);
    expect(got[10].lng).toBeCloseTo(fixes[10].lng, 6);
    expect(got[10].speed).toBe(fixes[10].speed);
    expect(got[10].params).toMatchObject({ fuel: '2:10.5', door: '3:open', count: '1:10' });
    // a late fix (older time, arriving last) is forwarded too, after the others (arrival order)
    await t.send([{ time: T0 - 3600_000, lat: 50, lng: 30 }]);
    await waitFor('late fix', () => rx.units('CAR-1').length === 61);
    expect(rx.units('CAR-1')[60].time).toBe(T0 - 3600_000);
    // The status is sampled (every 250 ms, the backlog every second): a sample taken before the late fix
    // may still show backlog 0. Wait until it shows the late fix acknowledged.
    const st = await waitFor('status', async () => {
      const now = await status(rid);
      return now.backlog === 0 && now.connected && now.last_forwarded === '2026-11-20 07:00:00' ? now : null;
    });
    expect(st).toMatchObject({ connected: true, backlog: 0, last_error: null, last_forwarded: '2026-11-20 07:00:00' });
  });

  it('a receiver down for a while gets the whole backlog when it returns; the status shows it meanwhile', async () => {
    const rx = await receiver('2.0');
    const port = rx.port;
    const rid = await retranslator(1, port);
    const { deviceId, t } = await boundTracker(rid);
    await t.send(track(T0, 10));
    await waitFor('first 10', () => rx.units(deviceId).length === 10);
    await rx.stop();
    await t.send(track(T0, 300, 10));
    const down = await waitFor('status while down', async () => {
      const st = await status(rid);
      return !st.connected && st.last_error && st.backlog === 300 ? st : null;
    });
    expect(down.last_error).toMatch(/ECONNREFUSED|closed/);
    const back = await receiver('2.0', port);
    await waitFor('backlog delivered', () => back.units(deviceId).length >= 300);
    expect(times(back.units(deviceId))).toEqual(times(track(T0, 300, 10)));
    await waitFor('backlog 0', async () => (await status(rid)).backlog === 0);
  });

  it('disable stops at once and keeps the cursors; enable forwards what arrived meanwhile', async () => {
    const rx = await receiver('2.0');
    const rid = await retranslator(1, rx.port);
    const { deviceId, t } = await boundTracker(rid);
    await t.send(track(T0, 5));
    await waitFor('5', () => rx.units(deviceId).length === 5);
    const r = await s.call('retranslator/update', { hash: ann.hash, retranslator: { id: rid, name: 'R', protocol_id: 1, address: '127.0.0.1', port: rx.port, enabled: false } });
    expect(r.body).toEqual({ success: true });
    await t.send(track(T0, 20, 5));
    await waitFor('backlog 20 while disabled', async () => (await status(rid)).backlog === 20);
    expect(rx.units(deviceId).length).toBe(5);
    expect(await status(rid)).toMatchObject({ connected: false, backlog: 20 });
    await s.call('retranslator/update', { hash: ann.hash, retranslator: { id: rid, name: 'R', protocol_id: 1, address: '127.0.0.1', port: rx.port, enabled: true } });
    await waitFor('the 20 that came meanwhile', () => rx.units(deviceId).length === 25);
    expect(times(rx.units(deviceId))).toEqual(times(track(T0, 25)));
  });

  it('delete stops forwarding at once', async () => {
    const rx = await receiver('2.0');
    const rid = await retranslator(1, rx.port);
    const { deviceId, t } = await boundTracker(rid);
    await t.send(track(T0, 3));
    await waitFor('3', () => rx.units(deviceId).length === 3);
    await s.call('retranslator/delete', { hash: ann.hash, retranslator_id: rid });
    await t.send(track(T0, 10, 3));
    await new Promise((r) => setTimeout(r, 400));
    expect(rx.units(deviceId).length).toBe(3);
  });

  it('a refused login is an error, retried with backoff', async () => {
    const rx = await receiver('2.0');
    rx.loginAnswer = '01';
    const rid = await retranslator(1, rx.port);
    const { deviceId, t } = await boundTracker(rid);
    await t.send(track(T0, 3));
    await waitFor('refused', async () => /login refused/.test((await status(rid)).last_error ?? ''));
    rx.loginAnswer = '1';
    await waitFor('3 after the login is accepted', () => rx.units(deviceId).length === 3);
  });
});

describe('Wialon IPS 1.1', () => {
  it('one #D# per fix, no CRC, in order', async () => {
    const rx = await receiver('1.1');
    const rid = await retranslator(2, rx.port);
    const { deviceId, t } = await boundTracker(rid);
    const fixes = track(T0, 40);
    await t.send(fixes);
    await waitFor('40', () => rx.units(deviceId).length === 40);
    expect(rx.logins[0]).toEqual({ version: '1.1', unit: deviceId, password: 'secret' });
    expect(rx.units(deviceId).every((r) => r.packet === 'D')).toBe(true);
    expect(times(rx.units(deviceId))).toEqual(times(fixes));
  });
});

describe('round trip into a second server', () => {
  it('the second server stores what the first forwards, under the fake id, with its attributes', async () => {
    const b = await serverWithWialon();
    cleanups.push(() => b.close());
    const bob = await b.user('bob@example.com');
    b.addTracker(bob.id, 'RELAY-9', { protocol: 'wialon' });
    for (const [pid, fake] of [
      [1, 'RELAY-9'],
      [2, 'RELAY-9'],
    ] as const) {
      const rid = await retranslator(pid, b.wialonPort, { name: `to B ${pid}` });
      const { t } = await boundTracker(rid, fake);
      const start = T0 + pid * 86_400_000;
      await t.send(track(start, 30).map((f, i) => ({ ...f, params: `temp1:2:${i}.25` })));
      const rows = await waitFor(`30 fixes in B (${pid})`, () => {
        const r = b.sql.prepare("SELECT f.time, f.lat, f.lng, f.speed, f.attrs FROM fixes f JOIN sources s ON s.id = f.source_id WHERE s.device_id = 'RELAY-9' AND f.time >= ? AND f.time < ? ORDER BY f.time").all(start, start + 86_400_000) as any[];
        return r.length === 30 ? r : null;
      });
      const sent = track(start, 30);
      rows.forEach((r, i) => {
        expect(r.time).toBe(sent[i].time);
        expect(r.lat).toBeCloseTo(sent[i].lat, 5);
        expect(r.lng).toBeCloseTo(sent[i].lng, 5);
        expect(r.speed).toBe(sent[i].speed);
        expect(JSON.parse(r.attrs)).toMatchObject({ temp1: i + 0.25 });
      });
      await s.call('retranslator/delete', { hash: ann.hash, retranslator_id: rid });
    }
  });
});
