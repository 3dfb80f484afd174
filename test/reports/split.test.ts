/**
 * A report's trackers shared among report threads (src/reports/parts.ts; issue 12, "Speed"): the body
 * a lead and a helper write together is the one a single thread writes, byte for byte, whichever
 * part took which tracker; parts merge in tracker order; a deleted tracker, a helper that fails, a
 * helper whose thread died and a helper that never starts are handled. The lead and helper run here
 * as two tasks of this thread (they interleave at every await), over a database the real gateway
 * and telemetry core filled.
 */
import { MessageChannel } from 'node:worker_threads';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReport, type ReportTask, type StoredParams } from '../../src/reports/generate.ts';
import { gatherHelpers, helperDied, helpWith, newSplitState, StoppedPart, takeTrackers, type PartEntry } from '../../src/reports/parts.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { journey } from '../telemetry/journeys.ts';
import { sendPoints } from './feed.ts';

const TZ = 'Europe/Vilnius';
const DAY = Date.UTC(2026, 10, 20, 6, 0, 0);

let s: TestServer;
let ann: { id: number; hash: string };
const trackers: number[] = [];

beforeAll(async () => {
  s = await startTestServer({ FSM_TELTONIKA_PORT: '0' });
  ann = await s.user('ann@example.com', { timeZone: TZ });
  // Five vans, each its own day (different trips, some over 90 km/h), one that never drove.
  for (let k = 0; k < 6; k++) {
    const imei = `35000000000010${k}`;
    trackers.push(s.addTracker(ann.id, imei, { label: `Van ${k + 1}` }));
    if (k === 5) continue;
    const { points } = journey({ lat: 54.6872 + k * 0.01, lng: 25.2797, time: DAY + k * 600_000 }, { ignition: true })
      .drive({ km: 3 + k, kmh: 50 + k * 15, bearing: 0 })
      .stop({ minutes: 10, ignitionOff: true })
      .drive({ km: 2, kmh: 95 + k * 5, bearing: 90 })
      .stop({ minutes: 6, ignitionOff: true })
      .drive({ km: 1 + k, kmh: 40, bearing: 180 })
      .build();
    await sendPoints(s.running.gateway.ports.teltonika.tcp!, imei, points);
  }
  expect(await s.running.telemetry.idle(60_000)).toBe(true);
}, 180_000);
afterAll(() => s?.close());

/** A running report row of the plugin over the trackers (as report/tracker/generate stores it). */
function reportRow(plugin: Record<string, unknown> & { plugin_id: number }, ids = trackers): number {
  const params: StoredParams = {
    geocoder: 'none',
    trackers: ids,
    plugin: { show_seconds: false, hide_empty_tabs: false, ...plugin },
    time_filter: null,
    locale_info: { locale: 'en', time_zone: TZ, measurement_system: 'metric' },
  };
  const id = s.store.reports.create({ ownerId: ann.id, userId: ann.id, pluginId: plugin.plugin_id, title: 'split', created: DAY, from: DAY - 3_600_000, to: DAY + 86_400_000, params: JSON.stringify(params) });
  expect(s.store.reports.start(id)).toBe(true);
  return id;
}

/**
 * The stored body as text (its id made alike; byte for byte what retrieve answers) and parsed. A
 * shared report's body is several gzip members: gunzip reads them as one.
 */
function bodyOf(id: number) {
  const text = gunzipSync(s.store.reports.body(ann.id, id)!).toString('utf8').replace(/^\{"id":\d+,/, '{"id":0,');
  return Object.assign(JSON.parse(text), { text });
}

async function single(plugin: Record<string, unknown> & { plugin_id: number }, ids = trackers) {
  const id = reportRow(plugin, ids);
  expect(await runReport({ dbFile: s.running.config.dbFile, id })).toEqual({ kind: 'ready' });
  return bodyOf(id);
}

/** The same report by a lead and `helpers` helpers sharing the trackers. */
async function shared(plugin: Record<string, unknown> & { plugin_id: number }, helpers = 1, ids = trackers) {
  const id = reportRow(plugin, ids);
  const state = newSplitState();
  const links = Array.from({ length: helpers }, () => new MessageChannel());
  const base: ReportTask = { dbFile: s.running.config.dbFile, id };
  const outcomes = await Promise.all([
    runReport({ ...base, split: { role: 'lead', state, helpers: links.map((l) => l.port1) } }),
    ...links.map((l) => runReport({ ...base, split: { role: 'helper', state, lead: l.port2 } })),
  ]);
  expect(outcomes[0]).toEqual({ kind: 'ready' });
  return bodyOf(id);
}

describe('a report shared among threads', () => {
  it('trips (4): the same body as one thread writes, sheets in tracker order, the summary first', async () => {
    const one = await single({ plugin_id: 4 });
    const two = await shared({ plugin_id: 4 });
    expect(two.text).toBe(one.text);
    expect(two.sheets.map((x: { header: string }) => x.header)).toEqual(['Summary', 'Van 1', 'Van 2', 'Van 3', 'Van 4', 'Van 5', 'Van 6']);
    expect(two.sheets[1].sections[0].rows.length).toBeGreaterThan(1);
    // Three helpers, the trackers in another order, one hidden without trips: still the same.
    const order = [trackers[3], trackers[0], trackers[5], trackers[2], trackers[4], trackers[1]];
    expect((await shared({ plugin_id: 4, hide_empty_tabs: true }, 3, order)).text).toBe((await single({ plugin_id: 4, hide_empty_tabs: true }, order)).text);
  });

  it('speed violations (27): the same body as one thread writes', async () => {
    const one = await single({ plugin_id: 27, max_speed: 90, min_duration_minutes: 0 });
    expect(one.sheets[0].sections[0].rows.filter((r: { data: { count: { raw: number } } }) => r.data.count.raw > 0).length).toBeGreaterThan(2);
    expect((await shared({ plugin_id: 27, max_speed: 90, min_duration_minutes: 0 })).text).toBe(one.text);
  });

  it('a tracker deleted before the report runs is left out by both, as by one thread', async () => {
    const extra = s.addTracker(ann.id, '350000000000199', { label: 'Sold van' });
    s.store.trackers.markDeleted(extra);
    const ids = [trackers[0], extra, trackers[1]];
    const two = await shared({ plugin_id: 4 }, 1, ids);
    expect(two.sheets.map((x: { header: string }) => x.header)).toEqual(['Summary', 'Van 1', 'Van 2']);
    expect(two.text).toBe((await single({ plugin_id: 4 }, ids)).text);
    // One tracker left: no summary sheet, as with one thread.
    expect((await shared({ plugin_id: 4 }, 1, [extra, trackers[2]])).text).toBe((await single({ plugin_id: 4 }, [extra, trackers[2]])).text);
  });
});

describe('the sharing protocol', () => {
  const work = (taken: number[], ms = 0) => async (i: number) => {
    taken.push(i);
    await new Promise((r) => setTimeout(r, ms));
  };

  it('every index is taken once; a slow part takes fewer; the lead gets the helpers\' entries', async () => {
    const state = newSplitState();
    const { port1, port2 } = new MessageChannel();
    const lead: number[] = [];
    const help: number[] = [];
    const done: number[] = [];
    const helper = helpWith({ role: 'helper', state, lead: port2 }, async () => {
      await takeTrackers(state, 20, work(help, 1), (n) => done.push(n));
      return help.map((index): PartEntry => ({ index, sheet: new Uint8Array([index]), totals: index }));
    });
    await takeTrackers(state, 20, work(lead, 10), (n) => done.push(n));
    const got = await gatherHelpers({ role: 'lead', state, helpers: [port1] }, () => false);
    await helper;
    expect([...lead, ...help].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(help.length).toBeGreaterThan(lead.length);
    expect(got.map((e) => e.index)).toEqual(help);
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('a helper that starts after the work is gone takes nothing; the lead does not wait for one never started', async () => {
    const state = newSplitState();
    const { port1, port2 } = new MessageChannel();
    const lead: number[] = [];
    await takeTrackers(state, 5, work(lead), () => {});
    expect(await gatherHelpers({ role: 'lead', state, helpers: [port1] }, () => false)).toEqual([]);
    const late: number[] = [];
    await helpWith({ role: 'helper', state, lead: port2 }, async () => {
      await takeTrackers(state, 5, work(late), () => {});
      return [];
    });
    expect([lead, late]).toEqual([[0, 1, 2, 3, 4], []]);
  });

  it('a helper\'s error, stop or dead thread ends the lead\'s wait with it', async () => {
    for (const [end, expected] of [
      [() => Promise.reject(new Error('disk on fire')), 'disk on fire'],
      [() => new Promise<never>(() => {}), 'a report thread sharing the trackers failed'],
    ] as const) {
      const state = newSplitState();
      const { port1, port2 } = new MessageChannel();
      void helpWith({ role: 'helper', state, lead: port2 }, end);
      if (expected !== 'disk on fire') setTimeout(() => helperDied(state), 20);
      await expect(gatherHelpers({ role: 'lead', state, helpers: [port1] }, () => false)).rejects.toThrow(expected);
      port1.close();
    }
    const state = newSplitState();
    const { port1, port2 } = new MessageChannel();
    void helpWith({ role: 'helper', state, lead: port2 }, () => new Promise<never>(() => {}));
    let stop = false;
    setTimeout(() => (stop = true), 20);
    await expect(gatherHelpers({ role: 'lead', state, helpers: [port1] }, () => stop)).rejects.toBeInstanceOf(StoppedPart);
    port1.close();
    port2.close();
  });
});
