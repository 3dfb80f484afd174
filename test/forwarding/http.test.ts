/**
 * Forwarding over HTTP (issue 13, docs/retranslators.md): the JSON webhook and OsmAnd (GET query and
 * form POST), each against a receiver written in the test (a real HTTP server that parses what it
 * receives), and OsmAnd round trip into a second instance of our server's OsmAnd listener.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { FAST, serverWithWialon, track, Tracker, waitFor } from './helpers.ts';
import { startTestServer } from '../helpers/server.ts';

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

let imei = 861000000000000;
const T0 = Date.UTC(2026, 10, 20, 8, 0, 0);

interface Req {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
/** An HTTP receiver: records every request; `answer` decides the status. */
async function httpReceiver(answer: (r: Req) => number = () => 200) {
  const requests: Req[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const r = { method: req.method!, url: req.url!, headers: req.headers, body };
      const status = answer(r);
      if (status >= 200 && status < 300) requests.push(r);
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => server.close(r)));
  return { requests, port: (server.address() as { port: number }).port };
}
async function retranslator(protocolId: number, address: string, o: Record<string, unknown> = {}) {
  const r = await s.call('retranslator/create', { hash: ann.hash, retranslator: { name: 'H', protocol_id: protocolId, address, enabled: true, ...o } });
  expect(r.body.success, JSON.stringify(r.body)).toBe(true);
  return r.body.id as number;
}
async function boundTracker(rid: number, fake?: string) {
  const deviceId = String(imei++);
  const tid = s.addTracker(ann.id, deviceId, { protocol: 'wialon' });
  await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: tid, retranslator_id: rid, fake_device_id: fake });
  const t = await Tracker.login(s.wialonPort, deviceId);
  cleanups.push(() => t.close());
  return { deviceId, tid, t };
}

const fixesOf = (rx: { requests: Req[] }) => rx.requests.flatMap((r) => JSON.parse(r.body).fixes as any[]);

describe('JSON over HTTP', () => {
  it('posts batches with every attribute, ISO 8601 UTC times, basic auth; 2xx acknowledges, a 5xx is retried', async () => {
    let failures = 2;
    const rx = await httpReceiver(() => (failures-- > 0 ? 503 : 200));
    const rid = await retranslator(3, `http://127.0.0.1:${rx.port}/hook`, { login: 'fleet', password: 'pw' });
    const { deviceId, tid, t } = await boundTracker(rid);
    const sent = track(T0, 25).map((f, i) => ({ ...f, params: `fuel:2:${i}.5,driver:3:ann` }));
    await t.send(sent);
    await waitFor('25 fixes', () => fixesOf(rx).length >= 25);
    const got = fixesOf(rx);
    expect(got.map((f) => f.time)).toEqual(sent.map((f) => new Date(f.time).toISOString()));
    expect(got[3]).toEqual({
      seq: expect.any(Number),
      tracker_id: tid,
      device_id: deviceId,
      time: '2026-11-20T08:00:03.000Z',
      received: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      lat: expect.closeTo(sent[3].lat, 6),
      lng: expect.closeTo(sent[3].lng, 6),
      altitude: 120,
      speed: 3,
      course: 90,
      satellites: 9,
      hdop: 0.9,
      precision: null,
      valid: true,
      lbs: false,
      archive: false,
      ignition: null,
      alarm: false,
      odometer: null,
      engine_hours: null,
      fuel_used: null,
      attributes: { fuel: 3.5, driver: 'ann', input: 3, output: 0 },
    });
    const r = rx.requests[0];
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/hook');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers.authorization).toBe(`Basic ${Buffer.from('fleet:pw').toString('base64')}`);
    expect(failures).toBeLessThan(0);
  });

  it('a password without a login travels as the X-Retranslator-Secret header', async () => {
    const rx = await httpReceiver((r) => (r.headers['x-retranslator-secret'] === 'tok3n' ? 204 : 401));
    const rid = await retranslator(3, `http://127.0.0.1:${rx.port}/`, { password: 'tok3n' });
    const { t } = await boundTracker(rid);
    await t.send(track(T0, 3));
    await waitFor('3 fixes', () => fixesOf(rx).length === 3);
    expect(rx.requests[0].headers.authorization).toBeUndefined();
  });

  it('a 4xx acknowledges nothing: the batch waits and is sent again', async () => {
    let refuse = true;
    const rx = await httpReceiver(() => (refuse ? 400 : 200));
    const rid = await retranslator(3, `http://127.0.0.1:${rx.port}/`);
    const { t } = await boundTracker(rid);
    await t.send(track(T0, 4));
    const st = await waitFor('error', async () => (await s.call('retranslator/list', { hash: ann.hash })).body.list.find((r: any) => r.id === rid && r.status.last_error)?.status);
    expect(st.last_error).toBe('receiver answered HTTP 400');
    refuse = false;
    await waitFor('4 fixes', () => fixesOf(rx).length === 4);
  });

  it('a 413 (body too large) makes the batches smaller until the receiver takes them: every fix, in order', async () => {
    // at most 3 fixes a body; the batch of 10 is halved to 5, then 2. The retranslator is disabled
    // while the tracker sends, so its first batch holds all 10 (otherwise the engine may read them as
    // they are committed, in pieces of 3 or less, and never meet the limit)
    const rx = await httpReceiver((r) => (JSON.parse(r.body).fixes.length > 3 ? 413 : 200));
    const address = `http://127.0.0.1:${rx.port}/`;
    const rid = await retranslator(3, address);
    const { t } = await boundTracker(rid);
    const enable = async (enabled: boolean) => expect((await s.call('retranslator/update', { hash: ann.hash, retranslator: { id: rid, name: 'H', protocol_id: 3, address, enabled } })).body.success).toBe(true);
    await enable(false);
    const sent = track(T0, 10);
    await t.send(sent);
    await enable(true);
    await waitFor('10 fixes', () => fixesOf(rx).length >= 10);
    expect(fixesOf(rx).map((f) => f.time)).toEqual(sent.map((f) => new Date(f.time).toISOString()));
    expect(Math.max(...rx.requests.map((r) => JSON.parse(r.body).fixes.length))).toBeLessThanOrEqual(3);
    // the status the list shows is published by the forwarding thread about every second
    const st = await waitFor('the 413 in the status', async () => (await s.call('retranslator/list', { hash: ann.hash })).body.list.find((r: any) => r.id === rid && r.status.last_error)?.status);
    expect(st.last_error).toMatch(/^receiver answered HTTP 413 to a body of \d+ bytes$/);
  });

  it('several POSTs in flight, a tracker never in two at once: per-tracker order holds; a refused lane is resent alone', async () => {
    // answers after 150 ms, so the batches of different lanes overlap; the first body with the first
    // tracker's fixes is refused (503): that lane is sent again, the others are not
    const inFlight = new Set<string>();
    let most = 0;
    let overlap = false;
    let refused = 0;
    let first = '';
    const got: Array<{ device_id: string; time: string }> = [];
    const server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const fixes = JSON.parse(body).fixes as Array<{ device_id: string; time: string }>;
        const ids = [...new Set(fixes.map((f) => f.device_id))];
        if (ids.some((d) => inFlight.has(d))) overlap = true;
        for (const d of ids) inFlight.add(d);
        most = Math.max(most, ++concurrent);
        setTimeout(() => {
          concurrent--;
          for (const d of ids) inFlight.delete(d);
          const refuse = !refused && ids.includes(first);
          if (refuse) refused++;
          else got.push(...fixes);
          res.writeHead(refuse ? 503 : 200).end();
        }, 150);
      });
    });
    let concurrent = 0;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => server.close(r)));
    const rid = await retranslator(3, `http://127.0.0.1:${(server.address() as { port: number }).port}/`);
    const trackers = [];
    for (let i = 0; i < 8; i++) trackers.push(await boundTracker(rid));
    first = trackers[0].deviceId;
    const sent = track(T0, 40);
    // the trackers send in steps, so that several batches follow each other
    for (let k = 0; k < 4; k++) await Promise.all(trackers.map(({ t }) => t.send(sent.slice(k * 10, k * 10 + 10))));
    await waitFor('320 fixes', () => got.length >= 320);
    await new Promise((r) => setTimeout(r, 300));
    expect(refused).toBe(1);
    expect(overlap).toBe(false);
    expect(most).toBeGreaterThanOrEqual(2);
    expect(most).toBeLessThanOrEqual(4);
    // every fix exactly once (only the refused body's fixes went twice, and a refused body does not count), in order per tracker
    expect(got.length).toBe(320);
    for (const { deviceId } of trackers) expect(got.filter((f) => f.device_id === deviceId).map((f) => f.time)).toEqual(sent.map((f) => new Date(f.time).toISOString()));
  });
});

describe('OsmAnd HTTP', () => {
  it('GET query, one request per fix, in order, speed in knots', async () => {
    const rx = await httpReceiver();
    const rid = await retranslator(4, `http://127.0.0.1:${rx.port}/osmand?key=k`);
    const { t } = await boundTracker(rid, 'PHONE-1');
    const sent = track(T0, 12);
    await t.send(sent);
    await waitFor('12 requests', () => rx.requests.length === 12);
    const q = rx.requests.map((r) => new URL(r.url, 'http://x').searchParams);
    expect(rx.requests.every((r) => r.method === 'GET')).toBe(true);
    expect(q.map((p) => Number(p.get('timestamp')) * 1000)).toEqual(sent.map((f) => f.time));
    expect(q[5].get('id')).toBe('PHONE-1');
    expect(q[5].get('key')).toBe('k');
    expect(Number(q[5].get('lat'))).toBeCloseTo(sent[5].lat, 6);
    expect(Number(q[5].get('lon'))).toBeCloseTo(sent[5].lng, 6);
    expect(Number(q[5].get('speed')) * 1.852).toBeCloseTo(5, 6);
  });

  it('form POST, and round trip into a second server\'s OsmAnd listener', async () => {
    const b = await startTestServer({ ...FAST, FSM_OSMAND_PORT: '0' });
    cleanups.push(() => b.close());
    const bob = await b.user('bob@example.com');
    b.addTracker(bob.id, 'PHONE-2', { protocol: 'osmand' });
    const port = b.running.gateway.ports.osmand.http!;
    const rid = await retranslator(5, `http://127.0.0.1:${port}/`);
    const { t } = await boundTracker(rid, 'PHONE-2');
    const sent = track(T0, 15).map((f, i) => ({ ...f, params: `temp1:2:${i}.5` }));
    await t.send(sent);
    const rows = await waitFor('15 fixes in B', () => {
      const r = b.sql.prepare("SELECT f.time, f.lat, f.lng, f.speed, f.attrs FROM fixes f JOIN sources s ON s.id = f.source_id WHERE s.device_id = 'PHONE-2' ORDER BY f.time").all() as any[];
      return r.length === 15 ? r : null;
    });
    rows.forEach((r, i) => {
      expect(r.time).toBe(sent[i].time);
      expect(r.lat).toBeCloseTo(sent[i].lat, 6);
      expect(r.speed).toBeCloseTo(sent[i].speed!, 6);
      expect(JSON.parse(r.attrs)).toMatchObject({ temp1: i + 0.5 });
    });
  });
});
