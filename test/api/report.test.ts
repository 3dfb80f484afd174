/**
 * Report calls over real HTTP (spec: Tracker reports; issue 12): every call, every error code and
 * the list item's exact shape, and that a refused generate stores nothing. The calls run on an API
 * of their own over the server's SQLite file whose services have no queue, so reports stay queued
 * until a test runs a ReportQueue of its own over them (then they are generated in its workers).
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../../src/api/kernel.ts';
import { buildApi } from '../../src/api/server.ts';
import { loadConfig } from '../../src/config.ts';
import { createGeocoder } from '../../src/geocoder/index.ts';
import type { Geocoder } from '../../src/geocoder/types.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { ReportQueue } from '../../src/reports/queue.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let app: FastifyInstance;
let base: string;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
let sub: { id: number; hash: string };
let subNoRight: { id: number; hash: string };
let demo: { id: number; hash: string };
let t1: number;
let t2: number;
let bobTracker: number;
let config: ReturnType<typeof loadConfig>;

async function call(path: string, params: Record<string, unknown>): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* a file */
  }
  return { status: res.status, body, headers: res.headers };
}

const count = () => (s.sql.prepare('SELECT count(*) AS n FROM reports').get() as { n: number }).n;
const period = { from: '2026-11-20 00:00:00', to: '2026-11-20 23:59:59' };
const trips = (extra: Record<string, unknown> = {}, hash = ann.hash) => call('report/tracker/generate', { hash, ...period, trackers: [t1], plugin: { plugin_id: 4 }, ...extra });

beforeAll(async () => {
  s = await startTestServer();
  config = loadConfig({ FSM_DATA_DIR: s.dataDir, FSM_LOG_LEVEL: 'silent' });
  const services = { config, store: s.store, mailer: createMailer(config.mail), now: Date.now, geocoder: undefined } as Partial<Services> as Services;
  app = await buildApi(services, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/v2/fsm/`;
  ann = await s.user('ann@example.com', { timeZone: 'Europe/Berlin' });
  bob = await s.user('bob@example.com');
  sub = await s.user('sub@example.com', { parent: 'ann@example.com', rights: ['reports'] });
  subNoRight = await s.user('sub2@example.com', { parent: 'ann@example.com', rights: [] });
  demo = await s.user('demo@example.com', { demo: true });
  t1 = s.addTracker(ann.id, '359000000000001', { label: 'Van 1' });
  t2 = s.addTracker(ann.id, '359000000000002', { label: 'Van 2' });
  bobTracker = s.addTracker(bob.id, '359000000000003');
}, 60_000);
afterAll(async () => {
  await app?.close();
  await s?.close();
});

describe('report/tracker/generate', () => {
  it('queues a report: answers its id; list shows the spec list item exactly', async () => {
    const r = await trips({ title: 'My trips', geocoder: 'geocoder_type_2', time_filter: { from: '08:00', to: '18:00', weekdays: [1, 2, 3, 4, 5] }, plugin: { plugin_id: 4, show_seconds: true, filter: false } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, id: expect.any(Number) });
    const row = s.store.reports.get(ann.id, r.body.id)!;
    const l = await call('report/tracker/list', { hash: ann.hash });
    expect(l.body.list.find((x: { id: number }) => x.id === r.body.id)).toEqual({
      id: r.body.id,
      created: new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Berlin', dateStyle: 'short', timeStyle: 'medium' }).format(new Date(row.created)),
      title: 'My trips',
      type: 'trips',
      percent: 0,
      from: '2026-11-20 00:00:00',
      to: '2026-11-20 23:59:59',
      time_filter: { from: '08:00', to: '18:00', weekdays: [1, 2, 3, 4, 5] },
      parameters: {
        geocoder: 'geocoder_type_2',
        trackers: [t1],
        plugins: [{ plugin_id: 4, show_seconds: true, hide_empty_tabs: false, filter: false, show_coordinates: false }],
        locale_info: { locale: 'en', time_zone: 'Europe/Berlin', measurement_system: 'metric' },
      },
      state: 'queued',
    });
    expect(row.from_time).toBe(Date.UTC(2026, 10, 19, 23));
  });

  it('title: the plugin default when null or absent, in the user\'s language', async () => {
    const a = await trips({ title: null });
    expect(s.store.reports.get(ann.id, a.body.id)!.title).toBe('Trips');
    s.store.users.updateSettings(bob.id, { locale: 'ru' });
    const b = await call('report/tracker/generate', { hash: bob.hash, ...period, trackers: [bobTracker], plugin: { plugin_id: 6 } });
    expect(s.store.reports.get(bob.id, b.body.id)!.title).toBe('Стоянки');
  });

  it('employees map to their trackers; a sub-user with the right works on its master\'s trackers', async () => {
    const e = (await s.call('employee/create', { hash: ann.hash, employee: { first_name: 'Eve', tracker_id: t2 } })).body.id;
    const r = await call('report/tracker/generate', { hash: ann.hash, ...period, employees: [e], plugin: { plugin_id: 6 } });
    expect(r.body.success).toBe(true);
    expect(JSON.parse(s.store.reports.get(ann.id, r.body.id)!.params)).toMatchObject({ trackers: [t2], employees: [e] });
    const bySub = await trips({}, sub.hash);
    expect(bySub.body.success).toBe(true);
    expect(s.store.reports.get(ann.id, bySub.body.id)!.user_id).toBe(sub.id);
    // An employee without a tracker, or someone else's: 217.
    const lone = (await s.call('employee/create', { hash: ann.hash, employee: { first_name: 'Lone' } })).body.id;
    const n = count();
    const bad = await call('report/tracker/generate', { hash: ann.hash, ...period, employees: [lone], plugin: { plugin_id: 6 } });
    expect(bad.body).toMatchObject({ success: false, status: { code: 217 }, ids: [lone] });
    expect(count()).toBe(n);
  });

  it('7 naming the parameter: dates, to before from, time filter, neither or both of trackers and employees, plugin members', async () => {
    const n = count();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ from: '2026-11-20' }, 'from'],
      [{ to: '2026-11-19 00:00:00' }, 'to'],
      [{ trackers: undefined }, 'trackers'],
      [{ employees: [1] }, 'employees'],
      [{ trackers: [] }, 'trackers'],
      [{ time_filter: { from: '8:00', to: '18:00', weekdays: [1] } }, 'time_filter.from'],
      [{ time_filter: { from: '08:00', to: '18:00', weekdays: [0] } }, 'time_filter.weekdays.0'],
      [{ geocoder: 'bing' }, 'geocoder'], // 'google' is an alias of geocoder_type_1 since issue 23
      [{ plugin: { plugin_id: 4, filter: 'yes' } }, 'plugin.filter'],
      [{ plugin: { plugin_id: 8, min_minutes_in_zone: -1 } }, 'plugin.min_minutes_in_zone'],
      [{ plugin: { plugin_id: 91, attributes: ['Bad Name'] } }, 'plugin.attributes.0'],
      [{ plugin: { show_seconds: true } }, 'plugin.plugin_id'],
    ];
    for (const [extra, parameter] of cases) {
      const r = await trips(extra);
      expect(r.status, parameter).toBe(400);
      expect(r.body.status.code, parameter).toBe(7);
      expect(r.body.errors.map((e: { parameter: string }) => e.parameter), parameter).toContain(parameter);
    }
    expect(count()).toBe(n);
  });

  it('222 for an unknown plugin', async () => {
    const n = count();
    const r = await trips({ plugin: { plugin_id: 9999 } });
    expect(r.status).toBe(404);
    expect(r.body.status.code).toBe(222);
    expect(count()).toBe(n);
  });

  it('211 with max_time_span over the tariff maximum (P31D by default), and P1D for the point report', async () => {
    const n = count();
    const long = await trips({ from: '2026-10-01 00:00:00', to: '2026-11-20 00:00:00' });
    expect(long.body).toEqual({ success: false, status: { code: 211, description: 'Requested time span is too big' }, max_time_span: 'P31D' });
    const points = await trips({ from: '2026-11-20 00:00:00', to: '2026-11-21 00:00:01', plugin: { plugin_id: 91 } });
    expect(points.body).toEqual({ success: false, status: { code: 211, description: 'Requested time span is too big' }, max_time_span: 'P1D' });
    expect((await trips({ from: '2026-11-20 00:00:00', to: '2026-11-21 00:00:00', plugin: { plugin_id: 91 } })).body.success).toBe(true);
    expect(count()).toBe(n + 1);
  });

  it('217 for trackers missing, of another user or blocked; zones of plugin 8 likewise', async () => {
    const n = count();
    for (const ids of [[t1, 999999], [bobTracker]]) {
      const r = await trips({ trackers: ids });
      expect(r.body).toMatchObject({ success: false, status: { code: 217 }, ids: ids.filter((x) => x !== t1) });
    }
    const blocked = s.addTracker(ann.id, '359000000000009');
    s.store.trackers.setBlocked(s.store.trackers.getAny(blocked)!.source_id, true);
    expect((await trips({ trackers: [blocked] })).body.status.code).toBe(217);
    const zone = await trips({ plugin: { plugin_id: 8, zone_ids: [424242] } });
    expect(zone.body).toMatchObject({ success: false, status: { code: 217 }, ids: [424242] });
    expect(count()).toBe(n);
  });

  it('236 when a tracker\'s tariff has no reports', async () => {
    const t = s.addTracker(ann.id, '359000000000010');
    const tariff = s.store.tariffs.copy(1, 'no reports');
    s.store.tariffs.update(tariff, { has_reports: false });
    s.sql.prepare('UPDATE sources SET tariff_id = ? WHERE id = ?').run(tariff, s.store.trackers.getAny(t)!.source_id);
    const n = count();
    const r = await trips({ trackers: [t1, t] });
    expect(r.status).toBe(402);
    expect(r.body).toMatchObject({ success: false, status: { code: 236 }, ids: [t] });
    expect(count()).toBe(n);
  });

  it('13 for a sub-user without the reports right, on every call', async () => {
    for (const path of ['report/tracker/generate', 'report/tracker/list', 'report/tracker/status', 'report/tracker/retrieve', 'report/tracker/download', 'report/tracker/delete']) {
      const r = await call(path, { hash: subNoRight.hash, ...period, trackers: [t1], plugin: { plugin_id: 4 }, report_id: 1, format: 'pdf' });
      expect(r.body.status.code, path).toBe(13);
    }
  });

  it('15 once the user has its limit of reports queued or running (15); other users are not held', async () => {
    const u = await s.user('busy@example.com');
    const t = s.addTracker(u.id, '359000000000020');
    const ask = () => call('report/tracker/generate', { hash: u.hash, ...period, trackers: [t], plugin: { plugin_id: 6 } });
    for (let i = 0; i < 15; i++) expect((await ask()).body.success).toBe(true);
    const n = count();
    const r = await ask();
    expect(r.status).toBe(429);
    expect(r.body.status.code).toBe(15);
    expect(count()).toBe(n);
    expect((await trips()).body.success).toBe(true);
  });
});

describe('status, retrieve, download, delete', () => {
  let queued: number;
  beforeAll(async () => {
    queued = (await trips()).body.id;
  });

  it('status: percent_ready 0 while queued; 204 for unknown or another user\'s report', async () => {
    expect((await call('report/tracker/status', { hash: ann.hash, report_id: queued })).body).toEqual({ success: true, percent_ready: 0, state: 'queued' });
    for (const [hash, id] of [[ann.hash, 987654], [bob.hash, queued]] as const) {
      const r = await call('report/tracker/status', { hash, report_id: id });
      expect(r.status).toBe(404);
      expect(r.body.status.code).toBe(204);
    }
  });

  it('retrieve and download answer 229 while the report is not ready, 204 when unknown, 7 for a bad format', async () => {
    const r = await call('report/tracker/retrieve', { hash: ann.hash, report_id: queued });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ success: false, status: { code: 229 }, percent_ready: 0 });
    const d = await call('report/tracker/download', { hash: ann.hash, report_id: queued, format: 'xlsx' });
    expect(d.body.status.code).toBe(229);
    expect((await call('report/tracker/retrieve', { hash: ann.hash, report_id: 987654 })).body.status.code).toBe(204);
    expect((await call('report/tracker/download', { hash: bob.hash, report_id: queued, format: 'pdf' })).body.status.code).toBe(204);
    const f = await call('report/tracker/download', { hash: ann.hash, report_id: queued, format: 'docx' });
    expect(f.body).toMatchObject({ status: { code: 7 }, errors: [{ parameter: 'format' }] });
  });

  it('a queue generates what waits: status 100, retrieve answers the report object', async () => {
    const queue = new ReportQueue(s.store, { dbFile: config.dbFile, threads: 2, maxAttempts: 3, geocoder: createGeocoder(config.geocoder) });
    try {
      await queue.start();
      expect(await queue.idle(120_000)).toBe(true);
    } finally {
      await queue.close();
    }
    expect((await call('report/tracker/status', { hash: ann.hash, report_id: queued })).body).toEqual({ success: true, percent_ready: 100, state: 'ready' });
    const r = await call('report/tracker/retrieve', { hash: ann.hash, report_id: queued });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      report: {
        id: queued,
        title: 'Trips',
        created: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        from: '2026-11-20 00:00:00',
        to: '2026-11-20 23:59:59',
        time_filter: null,
        locale_info: { locale: 'en', time_zone: 'Europe/Berlin', measurement_system: 'metric' },
        sheets: [
          {
            header: 'Van 1',
            entity_ids: [t1],
            additional_field: '',
            sections: [
              { type: 'table', header: 'Trips', columns: expect.any(Array), column_groups: [], data: [{ header: 'Trips', rows: [], total: null }] },
              {
                type: 'map_table',
                header: 'Summary',
                rows: [
                  { name: 'Trips', v: '0', raw: 0, highlight: false },
                  { name: 'Total distance, km', v: '0.00', raw: 0, highlight: false },
                  { name: 'Driving time', v: '0:00', raw: 0, highlight: false },
                  { name: 'Max speed, km/h', v: '0', raw: 0, highlight: false },
                  { name: 'Average speed, km/h', v: '0', raw: 0, highlight: false },
                ],
                track: [],
              },
            ],
          },
        ],
      },
    });
    // Every report of the tests was generated: none is left queued or running.
    expect(s.sql.prepare("SELECT count(*) AS n FROM reports WHERE state IN ('queued', 'running')").get()).toEqual({ n: 0 });
  }, 150_000);

  it('addresses of a geocoder type answered offline are looked up in the worker, others asked of the main thread', async () => {
    const cy = await s.user('cy@example.com', { timeZone: 'Europe/Berlin' });
    const van = s.addTracker(cy.id, '359000000000040', { label: 'Van 40' });
    const start = Date.UTC(2026, 10, 20, 9, 0, 0);
    s.sql
      .prepare(`INSERT INTO tracks (source_id, type, start_time, end_time, start_lat, start_lng, end_lat, end_lng, points, length_km, max_speed, avg_speed, extent_m) VALUES (?, 'trip', ?, ?, 54.6872, 25.2797, 54.7, 25.28, 50, 5, 60, 30, 3000)`)
      .run(s.store.trackers.getAny(van)!.source_id, start, start + 600_000);
    const ask = async (geocoder: string) => (await call('report/tracker/generate', { hash: cy.hash, ...period, geocoder, trackers: [van], plugin: { plugin_id: 4 } })).body.id as number;
    const offline = await ask('geocoder_type_1');
    const remote = await ask('geocoder_type_2');
    // The main thread's geocoder here answers every ask with a text of its own; type 1 is offline.
    const main: Geocoder = { reverse: async (lat, lng) => ({ lat, lng, address: 'asked of the main thread' }), search: async () => [] };
    const queue = new ReportQueue(s.store, { dbFile: config.dbFile, threads: 1, maxAttempts: 3, geocoder: main, offlineTypes: ['geocoder_type_1'] });
    try {
      await queue.start();
      expect(await queue.idle(120_000)).toBe(true);
    } finally {
      await queue.close();
    }
    const places = async (id: number) => {
      const r = await call('report/tracker/retrieve', { hash: cy.hash, report_id: id });
      const row = r.body.report.sheets[0].sections[0].data[0].rows[0];
      return [row.start_address, row.end_address];
    };
    const place = (lat: number, lng: number, address: string) => ({ v: address, raw: null, type: 'value', location: { lat, lng } });
    expect(await places(offline)).toEqual([place(54.6872, 25.2797, 'Vilnius, Lithuania'), place(54.7, 25.28, 'Vilnius, Lithuania')]);
    expect(await places(remote)).toEqual([place(54.6872, 25.2797, 'asked of the main thread'), place(54.7, 25.28, 'asked of the main thread')]);
  }, 150_000);

  it('delete: 101 for demo users, 204 when unknown or another user\'s, then the report is gone', async () => {
    const d = await call('report/tracker/generate', { hash: demo.hash, ...period, trackers: [s.addTracker(demo.id, '359000000000030')], plugin: { plugin_id: 4 } });
    const refused = await call('report/tracker/delete', { hash: demo.hash, report_id: d.body.id });
    expect(refused.status).toBe(403);
    expect(refused.body.status.code).toBe(101);
    expect(s.store.reports.get(demo.id, d.body.id)).toBeDefined();
    expect((await call('report/tracker/delete', { hash: bob.hash, report_id: queued })).body.status.code).toBe(204);
    expect((await call('report/tracker/delete', { hash: ann.hash, report_id: queued })).body).toEqual({ success: true });
    expect((await call('report/tracker/status', { hash: ann.hash, report_id: queued })).body.status.code).toBe(204);
    expect((await call('report/tracker/delete', { hash: ann.hash, report_id: queued })).body.status.code).toBe(204);
  });

  it('a deleted report\'s id never names another report: the next one, made right after, gets a new id', async () => {
    const newest = (await trips()).body.id;
    expect((await call('report/tracker/delete', { hash: ann.hash, report_id: newest })).body).toEqual({ success: true });
    const next = (await trips()).body.id;
    expect(next).toBeGreaterThan(newest);
    expect((await call('report/tracker/status', { hash: ann.hash, report_id: newest })).body.status.code).toBe(204);
  });
});

describe('user/settings/update (ours)', () => {
  it('changes time zone, locale and measurement system; user/get_info shows them', async () => {
    const u = await s.user('settings@example.com');
    expect((await call('user/settings/update', { hash: u.hash, time_zone: 'America/New_York', locale: 'pt-BR', measurement_system: 'us' })).body).toEqual({ success: true });
    const info = (await call('user/get_info', { hash: u.hash })).body.user_info;
    expect([info.time_zone, info.locale, info.measurement_system]).toEqual(['America/New_York', 'pt-BR', 'us']);
    expect((await call('user/settings/update', { hash: u.hash, measurement_system: 'imperial' })).body.success).toBe(true);
    const again = (await call('user/get_info', { hash: u.hash })).body.user_info;
    expect([again.time_zone, again.locale, again.measurement_system]).toEqual(['America/New_York', 'pt-BR', 'imperial']);
  });

  it('7 naming the member: unknown zone, malformed locale, unknown system, nothing given; nothing changes', async () => {
    const u = await s.user('settings2@example.com');
    for (const [params, parameter] of [[{ time_zone: 'Mars/Olympus' }, 'time_zone'], [{ locale: 'english!' }, 'locale'], [{ measurement_system: 'nautical' }, 'measurement_system'], [{}, 'time_zone']] as const) {
      const r = await call('user/settings/update', { hash: u.hash, ...params });
      expect(r.body.status.code).toBe(7);
      expect(r.body.errors[0].parameter).toBe(parameter);
    }
    const row = s.store.users.get(u.id)!;
    expect([row.time_zone, row.locale, row.measurement_system]).toEqual(['UTC', 'en', 'metric']);
  });
});
