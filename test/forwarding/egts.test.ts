/**
 * Forwarding in EGTS (issue 13, docs/retranslators.md) over real sockets: trackers send to our
 * server's Wialon IPS listener, the server forwards to an EGTS receiver written in the test
 * (egts-receiver.ts): authentication with the dispatcher id, TELEDATA records with position and
 * sensors under the numeric object id, acknowledgement only when every record is confirmed; and
 * round trip through our own EGTS listener into a second server instance, where each object id is a
 * device of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { EgtsReceiver } from './egts-receiver.ts';
import { serverWithWialon, track, Tracker, waitFor } from './helpers.ts';

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

let imei = 862000000000000;
let dispatcher = 4200;
const T0 = Date.UTC(2026, 10, 20, 8, 0, 0);

async function receiver() {
  const r = new EgtsReceiver();
  await r.start();
  cleanups.push(() => r.stop());
  return r;
}
async function retranslator(port: number, login = String(dispatcher++)) {
  const r = await s.call('retranslator/create', { hash: ann.hash, retranslator: { name: 'E', protocol_id: 8, address: '127.0.0.1', port, login, enabled: true } });
  expect(r.body.success, JSON.stringify(r.body)).toBe(true);
  return r.body.id as number;
}
async function boundTracker(rid: number, fake: string) {
  const deviceId = String(imei++);
  const tid = s.addTracker(ann.id, deviceId, { protocol: 'wialon' });
  expect((await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: tid, retranslator_id: rid, fake_device_id: fake })).body).toEqual({ success: true });
  const t = await Tracker.login(s.wialonPort, deviceId);
  cleanups.push(() => t.close());
  return { deviceId, tid, t };
}
const status = async (rid: number) => (await s.call('retranslator/list', { hash: ann.hash })).body.list.find((r: any) => r.id === rid).status;
const times = (list: Array<{ time: number }>) => list.map((r) => r.time);
const PARAMS = (i: number) => `adc1:1:${1000 + i},adc10:1:77,count1:1:${5000 + i},count9:1:12,fuel1:2:35.5,in9:3:true,in10:3:false,hdop:2:0.9`;

describe('EGTS', () => {
  it('the protocol entry requires a login (the dispatcher id) and numeric object ids', async () => {
    const list = (await s.call('retranslator/protocol/list', { hash: ann.hash })).body.list;
    expect(list.find((p: any) => p.name === 'EGTS')).toEqual({
      id: 8, name: 'EGTS', has_login: true, has_password: false, required_login: true, required_password: false,
      fake_device_id_pattern: expect.any(String), login_pattern: expect.any(String), address_is_url: false, default_port: 5162,
    });
  });

  it('authenticates as the dispatcher (DISPATCHER_IDENTITY), then forwards every fix as a TELEDATA record under the object id, with position and sensors', async () => {
    const rx = await receiver();
    const rid = await retranslator(rx.port, '4242');
    const { t } = await boundTracker(rid, '1001');
    const fixes = track(T0, 40).map((f, i) => ({ ...f, params: PARAMS(i) }));
    await t.send(fixes);
    await waitFor('40 records', () => rx.of(1001).length >= 40);
    expect(rx.logins).toEqual([4242]);
    expect(rx.loginKinds).toEqual(['dispatcher']);
    expect(rx.crcErrors).toEqual([]);
    const got = rx.of(1001);
    expect(times(got)).toEqual(times(fixes));
    const g = got[12];
    expect(g.lat).toBeCloseTo(fixes[12].lat, 6);
    expect(g.lng).toBeCloseTo(fixes[12].lng, 6);
    expect(g).toMatchObject({ valid: true, speed: fixes[12].speed, course: 90, alt: 120, din: 3, dout: 0, sats: 9, hdop: 0.9 });
    expect(g.adc).toEqual({ 1: 1012, 10: 77 });
    expect(g.counters).toEqual({ 1: 5012, 9: 12 });
    expect(g.ins).toMatchObject({ 9: true, 10: false });
    expect(g.fuel).toEqual({ 1: { value: 355, unit: 2 } });
    // the sender confirmed the receiver's RESULT_CODE packet
    await waitFor('result code confirmed', () => rx.confirmedBySender.includes(rx.resultCodePids[0]));
    const st = await waitFor('status', async () => {
      const now = await status(rid);
      return now.backlog === 0 && now.connected ? now : null;
    });
    expect(st).toMatchObject({ connected: true, backlog: 0, last_error: null });
  });

  it('a refused authentication is an error, retried with backoff', async () => {
    const rx = await receiver();
    rx.authCode = 151;
    const rid = await retranslator(rx.port);
    const { t } = await boundTracker(rid, '1002');
    await t.send(track(T0, 5));
    await waitFor('refused', async () => /login refused \(EGTS result code 151\)/.test((await status(rid)).last_error ?? ''));
    expect(rx.fixes).toEqual([]);
    rx.authCode = 0;
    await waitFor('5 after the login is accepted', () => rx.of(1002).length === 5);
  });

  it('a batch counts only when every record is confirmed: unconfirmed records are sent again', async () => {
    const rx = await receiver();
    rx.confirmRecords = false;
    const rid = await retranslator(rx.port);
    const { t } = await boundTracker(rid, '1003');
    await t.send(track(T0, 10));
    // the receiver answers the packets but confirms no record: nothing is acknowledged
    await waitFor('timeout', async () => /no answer within/.test((await status(rid)).last_error ?? ''), 20_000);
    expect((await status(rid)).backlog).toBe(10);
    rx.confirmRecords = true;
    await waitFor('backlog 0', async () => (await status(rid)).backlog === 0, 20_000);
    // every fix arrived, in order (the first, unconfirmed copies included)
    const firsts = [...new Map(rx.of(1003).map((f) => [f.time, f])).keys()];
    expect(firsts).toEqual(times(track(T0, 10)));
  });

  it('a record status that says "not now" fails the batch (sent again); a judged refusal counts as acknowledged', async () => {
    const rx = await receiver();
    let busy = 2;
    rx.recordStatus = (oid) => (oid === 1004 && busy > 0 ? (busy--, 156) : oid === 1005 ? 146 : 0);
    const rid = await retranslator(rx.port);
    const a = await boundTracker(rid, '1004');
    const b = await boundTracker(rid, '1005');
    await a.t.send(track(T0, 6));
    await b.t.send(track(T0, 3));
    await waitFor('6 of 1004', () => rx.of(1004).length >= 6);
    expect(times(rx.of(1004)).slice(-6)).toEqual(times(track(T0, 6)));
    await waitFor('backlog 0', async () => (await status(rid)).backlog === 0);
    expect(rx.of(1005)).toEqual([]);
  });
});

describe('round trip into a second server through its EGTS listener', () => {
  it('the second server stores each tracker under the device its object id names; an unregistered object is confirmed, noted and not stored', async () => {
    const b = await serverWithWialon({ FSM_EGTS_PORT: '0' });
    cleanups.push(() => b.close());
    const bob = await b.user('bob@example.com');
    // B knows the dispatcher (the connection's identity) and two of the three objects
    for (const id of ['7000', '7001', '7002']) b.addTracker(bob.id, id, { protocol: 'egts' });
    const rid = await retranslator(b.running.gateway.ports.egts.tcp!, '7000');
    const one = await boundTracker(rid, '7001');
    const two = await boundTracker(rid, '7002');
    const stray = await boundTracker(rid, '7003');
    const sentOne = track(T0, 30).map((f, i) => ({ ...f, params: PARAMS(i) }));
    // the second tracker elsewhere, with other sensor values, at the same instants
    const sentTwo = track(T0, 20).map((f, i) => ({ ...f, lat: f.lat - 1, lng: f.lng + 1, params: PARAMS(100 + i) }));
    await Promise.all([one.t.send(sentOne), two.t.send(sentTwo), stray.t.send(track(T0, 5))]);

    const fixesIn = (deviceId: string) => b.sql.prepare('SELECT f.time, f.lat, f.lng, f.speed, f.course, f.alt, f.attrs FROM fixes f JOIN sources s ON s.id = f.source_id WHERE s.device_id = ? ORDER BY f.time').all(deviceId) as any[];
    const rows = await waitFor('30 + 20 fixes in B', () => {
      const r = [fixesIn('7001'), fixesIn('7002')];
      return r[0].length === 30 && r[1].length === 20 ? r : null;
    });
    for (const [got, sent, base] of [[rows[0], sentOne, 0], [rows[1], sentTwo, 100]] as const) {
      expect(got.map((r) => r.time)).toEqual(times(sent));
      got.forEach((r, i) => {
        expect(r.lat).toBeCloseTo(sent[i].lat, 6);
        expect(r.lng).toBeCloseTo(sent[i].lng, 6);
        expect(r.speed).toBeCloseTo(sent[i].speed!, 1);
        expect(r.course).toBe(90);
        expect(r.alt).toBe(120);
        expect(JSON.parse(r.attrs)).toMatchObject({ adc1: 1000 + base + i, adc10: 77, count1: 5000 + base + i, count9: 12, fuel1: 35.5, in9: true, in10: false, input: 3 });
      });
    }
    // nothing under the dispatcher: every record named its object
    expect(fixesIn('7000')).toEqual([]);
    // the unregistered object's records were confirmed (A's backlog empties) but not stored; B lists it as unknown
    await waitFor('backlog 0', async () => (await status(rid)).backlog === 0);
    expect(b.sql.prepare("SELECT COUNT(*) FROM sources WHERE device_id = '7003'").pluck().get()).toBe(0);
    const unknown = await waitFor('7003 in the unknown list', () => {
      const r = b.sql.prepare("SELECT protocol FROM unknown_devices WHERE device_id = '7003'").pluck().all() as string[];
      return r.length ? r : null;
    }, 5000);
    expect(unknown).toEqual(['egts']);
  });
});
