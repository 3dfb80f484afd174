/**
 * Tracker reports as the public documentation writes the requests, and the retrieved report in the
 * documented shape (issue 23; src/reports/documented.ts): tables of `data` groups with `rows` of
 * `{field: cell}` and a separate `total`, cells `{v, raw, type: "value", location?}` with raw in the
 * shown unit (km, mi) and epoch milliseconds, summaries as map_table rows, for every plugin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLUGINS } from '../../../src/reports/plugins/index.ts';
import { hasMembers, startHarness, type Harness } from './harness.ts';

let h: Harness;
const START = Date.UTC(2031, 3, 2, 7, 0, 0); // 09:00 in Berlin (CEST)
beforeAll(async () => {
  h = await startHarness();
  const source = h.s.store.trackers.getAny(h.tracker)!.source_id;
  const trip = h.s.sql.prepare(
    `INSERT INTO tracks (source_id, type, start_time, end_time, start_lat, start_lng, end_lat, end_lng, points, length_km, max_speed, avg_speed, extent_m) VALUES (?, 'trip', ?, ?, 48.137, 11.575, 48.2, 11.6, 60, ?, ?, ?, 9000)`,
  );
  trip.run(source, START, START + 1800_000, 12.345, 71, 24.69); // 30 min
  trip.run(source, START + 7200_000, START + 8100_000, 5.5, 50, 22); // 15 min
});
afterAll(() => h?.close());

const period = { from: '2031-04-02 00:00:00', to: '2031-04-02 23:59:59' };

async function generated(plugin: Record<string, unknown>, hash = h.user.hash, trackers = [h.tracker]): Promise<any> {
  const g = (await h.s.call('report/tracker/generate', { hash, title: 'Documented', trackers, ...period, time_filter: { from: '00:00', to: '23:59', weekdays: [1, 2, 3, 4, 5, 6, 7] }, plugin: { show_seconds: false, ...plugin } })).body;
  expect(g.success, JSON.stringify(g)).toBe(true);
  for (let i = 0; i < 300; i++) {
    const st = (await h.s.call('report/tracker/status', { hash, report_id: g.id })).body;
    expect(st.success).toBe(true);
    if (st.percent_ready === 100) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const r = (await h.s.call('report/tracker/retrieve', { hash, report_id: g.id })).body;
  expect(r.success, JSON.stringify(r).slice(0, 300)).toBe(true);
  return r.report;
}

/** Every section in the documented shape: tables of groups of rows of value cells, map_tables of named rows. */
function checkShape(report: any, what: string): void {
  hasMembers(report, ['created', 'time_filter', 'title', 'id', 'sheets', 'from', 'to'], what);
  for (const sheet of report.sheets) {
    hasMembers(sheet, ['header', 'sections', 'entity_ids', 'additional_field'], `${what} sheet`);
    for (const sec of sheet.sections) {
      expect(['table', 'map_table', 'text'], `${what} section type`).toContain(sec.type);
      if (sec.type === 'table') {
        hasMembers(sec, ['header', 'columns', 'column_groups', 'data'], `${what} table`);
        for (const c of sec.columns) hasMembers(c, ['field', 'title', 'align', 'width', 'weight', 'highlight_min_max'], `${what} column`);
        for (const group of sec.data) {
          hasMembers(group, ['header', 'rows', 'total'], `${what} group`);
          const cells = [...group.rows.flatMap((r: any) => Object.values(r)), ...(group.total ? Object.entries(group.total).filter(([k]) => k !== 'text').map(([, v]) => v) : [])];
          for (const cell of cells as any[]) {
            expect(cell.type, `${what} cell ${JSON.stringify(cell)}`).toBe('value');
            expect(typeof cell.v).toBe('string');
            expect(cell.raw === null || typeof cell.raw === 'number').toBe(true);
          }
        }
      } else if (sec.type === 'map_table') {
        hasMembers(sec, ['header', 'rows'], `${what} map_table`);
        for (const row of sec.rows) hasMembers(row, ['name', 'v', 'raw', 'highlight'], `${what} map_table row`);
      }
    }
  }
}

describe('report/tracker/*', () => {
  it('retrieve: the trips table in the documented shape; raw in km, km/h and epoch ms; the total apart', async () => {
    const report = await generated({ plugin_id: 4, hide_empty_tabs: true, split: true, show_idle_duration: false, show_coordinates: false, filter: true, group_by_driver: false });
    checkShape(report, 'trips');
    const [table, summary] = report.sheets[0].sections;
    expect(table.type).toBe('table');
    const col = (field: string) => table.columns.find((c: any) => c.field === field);
    expect(col('length')).toMatchObject({ title: 'Distance,\nkm', align: 'right', highlight_min_max: false });
    expect(col('start_address')).toMatchObject({ align: 'left' });
    const [first, second] = table.data[0].rows;
    expect(first.length).toEqual({ v: '12.35', raw: 12.345, type: 'value' });
    expect(first.max_speed).toEqual({ v: '71', raw: 71, type: 'value' });
    expect(first.start_time).toEqual({ v: '2031-04-02 09:00', raw: START, type: 'value' });
    expect(first.duration).toEqual({ v: '0:30', raw: 1800, type: 'value' });
    expect(first.start_address).toMatchObject({ type: 'value', location: { lat: 48.137, lng: 11.575 } });
    expect(second.length.raw).toBe(5.5);
    // A client summing raw gets the total's raw.
    expect(table.data[0].total).toMatchObject({ text: 'Total', length: { v: '17.85', raw: 17.845, type: 'value' }, duration: { v: '0:45', raw: 2700, type: 'value' } });
    expect(summary).toMatchObject({ type: 'map_table', header: 'Summary' });
    expect(summary.rows[1]).toEqual({ name: 'Total distance, km', v: '17.85', raw: 17.845, highlight: false });
    expect(Array.isArray(summary.track)).toBe(true);
  });

  it('an imperial user gets raw in miles and mph, titles in mi', async () => {
    const u = await h.s.user('imperial@example.com', { timeZone: 'Europe/Berlin' });
    h.s.sql.prepare("UPDATE users SET measurement_system = 'imperial' WHERE id = ?").run(u.id);
    const t = h.s.store.trackers.clone(h.s.store.trackers.getAny(h.tracker)!, u.id, 'Clone');
    const report = await generated({ plugin_id: 4 }, u.hash, [t]);
    const table = report.sheets[0].sections[0];
    expect(table.columns.find((c: any) => c.field === 'length').title).toBe('Distance,\nmi');
    expect(table.data[0].rows[0].length).toEqual({ v: '7.67', raw: 7.671, type: 'value' });
    expect(table.data[0].rows[0].max_speed).toEqual({ v: '44', raw: 44.1, type: 'value' });
  });

  it('every plugin answers the documented shape (also its summary sheet over two trackers)', async () => {
    const second = h.s.addTracker(h.user.id, '359633100000002', { label: 'Van two' });
    const extra: Record<number, Record<string, unknown>> = { 27: { max_speed: 60, min_duration_minutes: 0 } };
    for (const id of PLUGINS.keys()) {
      const report = await generated({ plugin_id: id, ...extra[id] }, h.user.hash, [h.tracker, second]);
      checkShape(report, `plugin ${id}`);
    }
  }, 120_000);

  it('list, status, download and delete: documented requests, documented members', async () => {
    const g = (await h.s.call('report/tracker/generate', { hash: h.user.hash, title: 'Trip report', trackers: [h.tracker], ...period, plugin: { plugin_id: 4 } })).body;
    const list = await h.documented('report/tracker/list', {}, ['list']);
    hasMembers(list.list.find((x: any) => x.id === g.id), ['created', 'time_filter', 'title', 'id', 'parameters', 'percent', 'type', 'from', 'to'], 'report/tracker/list item');
    const st = await h.documented('report/tracker/status', { report_id: g.id }, ['percent_ready']);
    expect(st.percent_ready).toBeGreaterThanOrEqual(0);
    await generated({ plugin_id: 4 }); // waits until the queue is idle again
    for (const format of ['pdf', 'xlsx', 'xls']) {
      const res = await fetch(`${h.s.url}/v2/report/tracker/download?hash=${h.user.hash}&report_id=${g.id}&format=${format}&headless=true`);
      expect(res.status, format).toBe(200);
      await res.arrayBuffer();
    }
    await h.documented('report/tracker/delete', { report_id: g.id });
  });
});
