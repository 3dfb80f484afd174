/**
 * /metrics, /health and /ready of the real server over real sockets (issue 15, docs/operations.md):
 * a Teltonika tracker sends fixes over TCP and a second connection a malformed frame, fixes and a bad
 * datagram come over UDP, an OsmAnd fix and a bad request over HTTP, API calls succeed and fail, then a scrape shows exactly that, in a strictly checked exposition format.
 * Last, /ready answers 503 while the server stops.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import { statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, imeiPacket, TELTONIKA_DATA, until } from '../helpers/device-socket.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { parseExposition, valueOf, type Family } from './exposition.ts';

const IMEI = '356307042441013';
/** Codec 8 over UDP (test/gateway/transports.test.ts): IMEI 352093086403655, one record; answered 0005cafe010501. */
const UDP = Buffer.from('003dcafe0105000f33353230393330383634303336353508010000016b4f815b30010000000000000000000000000000000103021503010101425dbc000001', 'hex');



let s: TestServer;
let stopped = false;
let owner: { id: number; hash: string };
let metrics: Map<string, Family>;
let metricsText: string;
let contentType: string | null;
const sockets: net.Socket[] = [];

beforeAll(async () => {
  s = await startTestServer({ FSM_TELTONIKA_PORT: '0', FSM_OSMAND_PORT: '0', FSM_GATEWAY_HOST: '127.0.0.1' });
  owner = await s.user('ops@example.com');
  s.addTracker(owner.id, IMEI);
  const port = s.running.gateway.ports.teltonika.tcp!;

  // A tracker: login, then two packets of two records, each acknowledged after its commit.
  const good = await connect(port);
  sockets.push(good.socket);
  good.socket.write(imeiPacket(IMEI));
  expect(await until(() => good.received().length >= 1)).toBe(true);
  good.socket.write(TELTONIKA_DATA);
  expect(await until(() => good.received().length >= 5)).toBe(true);
  good.socket.write(TELTONIKA_DATA);
  expect(await until(() => good.received().length >= 9)).toBe(true);
  expect(good.received().toString('hex')).toBe('01' + '00000002' + '00000002');

  // A second connection: login, then a frame with a codec that does not exist.
  const bad = await connect(port);
  sockets.push(bad.socket);
  bad.socket.write(imeiPacket(IMEI));
  expect(await until(() => bad.received().length >= 1)).toBe(true);
  const broken = Buffer.from(TELTONIKA_DATA);
  broken[8] = 0x99;
  bad.socket.write(broken);
  expect(await until(() => bad.closed())).toBe(true);
  // The server's side of the closed connection is counted out as it closes.
  expect(await until(() => s.running.gateway.core.byProtocol.get('teltonika')!.connections === 1)).toBe(true);

  // UDP: a datagram of one record (acknowledged), and one that does not decode.
  s.addTracker(owner.id, '352093086403655');
  const udp = dgram.createSocket('udp4');
  const udpPort = s.running.gateway.ports.teltonika.udp!;
  const reply = new Promise<Buffer>((resolve) => udp.once('message', resolve));
  udp.send(UDP, udpPort, '127.0.0.1');
  expect((await reply).toString('hex')).toBe('0005cafe010501');
  udp.send(Buffer.from('00ff', 'hex'), udpPort, '127.0.0.1');
  expect(await until(() => s.running.gateway.core.byProtocol.get('teltonika')!.decodeErrors === 2)).toBe(true);
  udp.close();

  // HTTP (OsmAnd): a fix, and a body that does not decode.
  s.addTracker(owner.id, '48241179', { protocol: 'osmand' });
  const osmand = `http://127.0.0.1:${s.running.gateway.ports.osmand.http}`;
  expect((await fetch(`${osmand}/?id=48241179&lat=52.5&lon=13.4&timestamp=${Math.floor(Date.now() / 1000) - 60}`)).status).toBe(200);
  expect((await fetch(osmand, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"location": ' })).status).toBe(400);

  // API calls: a success, a missing session (4), a bad parameter (7), an unknown call (3).
  expect((await s.call('tracker/list', { hash: owner.hash })).status).toBe(200);
  expect((await s.call('tracker/list', {})).body.status.code).toBe(4);
  expect((await s.call('tracker/read', { hash: owner.hash, tracker_id: 'abc' })).body.status.code).toBe(7);
  expect((await s.call('no/such/call', {})).body.status.code).toBe(3);

  const res = await fetch(`${s.url}/metrics`);
  expect(res.status).toBe(200);
  contentType = res.headers.get('content-type');
  metricsText = await res.text();
  metrics = parseExposition(metricsText);
}, 120_000);

afterAll(async () => {
  for (const sock of sockets) sock.destroy();
  if (!stopped) await s.close();
});

const teltonika = { protocol: 'teltonika' };

describe('/metrics', () => {
  it('is Prometheus text (0.0.4) that a strict reader accepts, with every fsm_ family typed and described', () => {
    expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    const expected: Record<string, Family['type']> = {
      fsm_device_connections: 'gauge',
      fsm_device_frames_received_total: 'counter',
      fsm_device_frames_acknowledged_total: 'counter',
      fsm_device_fixes_received_total: 'counter',
      fsm_device_fixes_acknowledged_total: 'counter',
      fsm_device_decode_errors_total: 'counter',
      fsm_writer_commit_latency_seconds: 'histogram',
      fsm_writer_queue_depth: 'gauge',
      fsm_telemetry_backlog: 'gauge',
      fsm_telemetry_lag_seconds: 'gauge',
      fsm_api_requests_total: 'counter',
      fsm_api_request_duration_seconds: 'histogram',
      fsm_report_queue: 'gauge',
      fsm_forwarding_backlog: 'gauge',
      fsm_database_size_bytes: 'gauge',
    };
    const ours = [...metrics.values()].filter((f) => f.name.startsWith('fsm_'));
    expect(Object.fromEntries(ours.map((f) => [f.name, f.type]))).toEqual(expected);
    for (const f of ours) expect(f.help.length).toBeGreaterThan(10);
    // The process figures come along (CPU, memory, event loop).
    expect(metrics.get('process_cpu_user_seconds_total')?.type).toBe('counter');
    expect(metrics.get('nodejs_eventloop_lag_seconds')?.type).toBe('gauge');
  });

  it('counts the device traffic exactly, per protocol: frames and fixes received and acknowledged, decode errors, open connections', () => {
    const device = (protocol: string) =>
      Object.fromEntries(
        ['frames_received_total', 'frames_acknowledged_total', 'fixes_received_total', 'fixes_acknowledged_total', 'decode_errors_total'].map((m) => [m, valueOf(metrics, `fsm_device_${m}`, `fsm_device_${m}`, { protocol })]),
      );
    // Teltonika: TCP login + 2 packets of 2 records, login + a broken frame; UDP a datagram of 1 record, and garbage.
    // Acknowledged frames: the two logins, the two packets, the datagram (issue 23).
    expect(device('teltonika')).toEqual({ frames_received_total: 7, frames_acknowledged_total: 5, fixes_received_total: 5, fixes_acknowledged_total: 5, decode_errors_total: 2 });
    // OsmAnd: a request with a fix, a request that does not decode.
    expect(device('osmand')).toEqual({ frames_received_total: 2, frames_acknowledged_total: 1, fixes_received_total: 1, fixes_acknowledged_total: 1, decode_errors_total: 1 });
    expect(valueOf(metrics, 'fsm_device_connections', 'fsm_device_connections', teltonika)).toBe(1);
    expect(valueOf(metrics, 'fsm_device_connections', 'fsm_device_connections', { protocol: 'osmand' })).toBe(0);
    // Only the enabled listeners' protocols have series.
    expect(metrics.get('fsm_device_frames_received_total')!.samples.map((x) => x.labels.protocol).sort()).toEqual(['osmand', 'teltonika']);
  });

  it('times the writer\'s group commits and shows its queue', () => {
    const commits = valueOf(metrics, 'fsm_writer_commit_latency_seconds', 'fsm_writer_commit_latency_seconds_count')!;
    // Four frames with records, each acknowledged before the next was sent: four commits (logins carry no records).
    expect(commits).toBe(4);
    expect(valueOf(metrics, 'fsm_writer_commit_latency_seconds', 'fsm_writer_commit_latency_seconds_sum')!).toBeGreaterThan(0);
    expect(valueOf(metrics, 'fsm_writer_queue_depth', 'fsm_writer_queue_depth')).toBe(0);
  });

  it('counts API requests by call, HTTP status and spec error code, with their latency by call', () => {
    const requests = metrics.get('fsm_api_requests_total')!.samples.map((x) => [x.labels.call, x.labels.code, x.labels.error, x.value]);
    expect(requests.sort()).toEqual(
      [
        ['(unknown)', '404', '3', 1],
        ['tracker/list', '200', '0', 1],
        ['tracker/list', '403', '4', 1],
        ['tracker/read', '400', '7', 1],
        ['user/auth', '200', '0', 1],
      ].sort(),
    );
    const counts = Object.fromEntries(metrics.get('fsm_api_request_duration_seconds')!.samples.filter((x) => x.name.endsWith('_count')).map((x) => [x.labels.call, x.value]));
    expect(counts).toEqual({ '(unknown)': 1, 'tracker/list': 2, 'tracker/read': 1, 'user/auth': 1 });
  });

  it('reports the database size on disk (database file and WAL)', () => {
    const size = valueOf(metrics, 'fsm_database_size_bytes', 'fsm_database_size_bytes')!;
    const db = s.running.config.dbFile;
    expect(size).toBeGreaterThanOrEqual(statSync(db).size);
    expect(size).toBeLessThanOrEqual(statSync(db).size + (statSync(`${db}-wal`, { throwIfNoEntry: false })?.size ?? 0) + 10 * 1024 * 1024);
  });

  it('shows the telemetry backlog drained to 0 and no lag once the fixes are processed', async () => {
    expect(await s.running.telemetry.idle(30_000)).toBe(true);
    const again = parseExposition(await (await fetch(`${s.url}/metrics`)).text());
    expect(valueOf(again, 'fsm_telemetry_backlog', 'fsm_telemetry_backlog')).toBe(0);
    expect(valueOf(again, 'fsm_telemetry_lag_seconds', 'fsm_telemetry_lag_seconds')).toBe(0);
    // Scrapes are not API calls: the counts stay as they were; counters never go back.
    expect(valueOf(again, 'fsm_api_requests_total', 'fsm_api_requests_total', { call: 'tracker/list', code: '200', error: '0' })).toBe(1);
    expect(valueOf(again, 'fsm_device_fixes_acknowledged_total', 'fsm_device_fixes_acknowledged_total', teltonika)).toBe(5);
  });
});

describe('/health and /ready', () => {
  it('/health answers 200 {"status":"ok"}', async () => {
    const res = await fetch(`${s.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('/ready answers 200 with every part ok while the store is open and the listeners are up', async () => {
    const res = await fetch(`${s.url}/ready`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', parts: { store: 'ok', listeners: 'ok', writer: 'ok' } });
  });

  it('/ready answers 503 once a graceful stop began, on a connection that was open before', async () => {
    // A keep-alive client in the middle of a call when the stop begins (a load balancer's connection):
    // its next request, /ready, is answered 503 instead of being taken.
    const port = new URL(s.url).port;
    const sock = net.connect(Number(port), '127.0.0.1');
    sockets.push(sock);
    await new Promise((r) => sock.once('connect', r));
    let received = '';
    let closed = false;
    sock.on('data', (d) => (received += d.toString('latin1')));
    sock.on('close', () => (closed = true));
    sock.on('error', () => undefined);
    const body = JSON.stringify({ hash: owner.hash });
    sock.write(`POST /v2/fsm/tracker/list HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
    await new Promise((r) => setTimeout(r, 300));
    stopped = true;
    const closing = s.close();
    await new Promise((r) => setTimeout(r, 300));
    sock.write(`${body.slice(5)}GET /ready HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(await until(() => closed || (received.match(/HTTP\/1\.1 \d{3}/g)?.length ?? 0) >= 2)).toBe(true);
    const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]);
    expect(statuses).toEqual(['200', '503']);
    await closing;
  });
});
