/**
 * Plugin 10, fuel volume: fills and drains found in the fuel level the trackers report (the
 * `fuel_level` sensor of tracker/get_fuel, in litres, else in percent of the tank), a sheet per
 * tracker with the episodes (time, place, level before and after, volume), the level over time and
 * the totals (consumed = level at start + filled − drained − level at end). A tracker that reported
 * no level in the period gets a line saying so (no sheet under hide_empty_tabs). fuel-levels.ts
 * finds the episodes; docs/reports.md describes how.
 */
import { z } from 'zod';
import type { AttrValue } from '../../../protocols/types.ts';
import type { Cell, Row, Section, Sheet } from '../model.ts';
import { word } from '../i18n.ts';
import { inWindows } from '../time-filter.ts';
import { levelEpisodes, levelOf, medianSmooth, type LevelReading, type LevelUnit } from './fuel-levels.ts';
import { columns, dataRow, totalRow, trackerDone } from './sheets.ts';
import { definePlugin, type PluginContext, type ReportTracker } from './types.ts';

const params = z.object({
  show_coordinates: z.boolean().default(false),
  /** Median over this many readings (odd; 1 = no smoothing). */
  smoothing: z.number().int().min(1).max(31).refine((n) => n % 2 === 1, 'an odd number of readings').default(5),
  /** Smallest fill, litres (percent for percent sensors). */
  min_fill_volume: z.number().positive().max(100_000).default(10),
  /** Smallest drain, litres (percent for percent sensors). */
  min_drain_volume: z.number().positive().max(100_000).default(10),
  /** A pause in the change longer than this ends a fill or drain. */
  join_minutes: z.number().int().min(0).max(120).default(5),
  /** One level row at most every so many minutes (and the last reading). */
  level_interval_minutes: z.number().int().min(1).max(1440).default(60),
  show_speed: z.boolean().default(false),
});

type Params = z.infer<typeof params>;

interface Totals {
  unit: LevelUnit;
  first: number;
  last: number;
  filled: number;
  drained: number;
  fills: number;
  drains: number;
  /** Level at start + every fill − every drain − level at end (the time filter leaves none out). */
  consumed: number;
}

export const fuelPlugin = definePlugin({
  id: 10,
  type: 'fuel',
  params,
  async generate(ctx, p) {
    const { locale } = ctx;
    const sheets: Sheet[] = [];
    const all: Array<{ tracker: ReportTracker; t: Totals | null }> = [];
    for (const [i, tracker] of ctx.trackers.entries()) {
      const { readings, unit } = await readingsOf(ctx, tracker);
      const t = readings.length ? await trackerSheet(ctx, p, tracker, readings, unit) : null;
      all.push({ tracker, t: t && t.totals });
      await trackerDone(ctx, i);
      if (t) sheets.push(t.sheet);
      else if (!p.hide_empty_tabs) {
        sheets.push({ header: tracker.label, entity_ids: [tracker.id], sections: [{ type: 'text', header: word(locale, 'summary'), data: [{ k: word(locale, 'fuel_sensor'), v: ctx.fmt.text(word(locale, 'no_fuel_sensor')) }] }] });
      }
    }
    if (ctx.trackers.length > 1) sheets.unshift(summarySheet(ctx, all));
    return sheets;
  },
});

/** The tracker's level readings of the period in the unit of its first one (a device reports one kind). */
async function readingsOf(ctx: PluginContext, tracker: ReportTracker): Promise<{ readings: LevelReading[]; unit: LevelUnit }> {
  const protocol = (await ctx.data.trackers.getAny(tracker.id))?.protocol ?? '';
  const readings: LevelReading[] = [];
  let unit: LevelUnit | undefined;
  for (const f of ctx.store.reportData.fuelFixes(tracker.sourceId, ctx.from, ctx.to)) {
    let attrs: Record<string, AttrValue>;
    try {
      attrs = JSON.parse(f.attrs) as Record<string, AttrValue>;
    } catch {
      continue;
    }
    const l = levelOf(attrs, f.time, protocol);
    if (!l || (unit && l.unit !== unit)) continue;
    unit = l.unit;
    readings.push({ time: f.time, level: l.level, lat: f.lat, lng: f.lng, speed: f.speed ?? 0 });
  }
  return { readings, unit: unit ?? 'litre' };
}

async function trackerSheet(ctx: PluginContext, p: Params, tracker: ReportTracker, r: LevelReading[], unit: LevelUnit): Promise<{ sheet: Sheet; totals: Totals }> {
  const { fmt, locale } = ctx;
  const vol = (x: number): Cell => (unit === 'litre' ? fmt.volume(x) : fmt.percent(x));
  const s = medianSmooth(r.map((x) => x.level), p.smoothing);
  const all = levelEpisodes(r, s, { minFill: p.min_fill_volume, minDrain: p.min_drain_volume, joinMs: p.join_minutes * 60_000 });
  const change = all.reduce((a, e) => a + e.after - e.before, 0);
  const t: Totals = { unit, first: s[0], last: s[s.length - 1], filled: 0, drained: 0, fills: 0, drains: 0, consumed: s[0] + change - s[s.length - 1] };
  const episodes = all.filter((e) => inWindows(ctx.windows, r[e.start].time));
  const rows: Row[] = [];
  for (const e of episodes) {
    const at = r[e.start];
    const amount = Math.abs(e.after - e.before);
    if (e.kind === 'fill') ((t.filled += amount), t.fills++);
    else ((t.drained += amount), t.drains++);
    rows.push(
      dataRow({
        n: fmt.number(rows.length + 1),
        kind: fmt.text(word(locale, e.kind)),
        start_time: fmt.dateTime(at.time),
        end_time: fmt.dateTime(r[e.end].time),
        location: at.lat === null || at.lng === null ? fmt.text('') : fmt.location(at.lat, at.lng, await ctx.address(at.lat, at.lng), p.show_coordinates),
        before: vol(e.before),
        after: vol(e.after),
        volume: vol(amount),
      }),
    );
  }
  const sections: Section[] = [
    { type: 'table', header: word(locale, 'fills_drains'), columns: columns(locale, [['n', 'n', 1], ['kind', 'event', 2], ['start_time', 'start', 3], ['end_time', 'end', 3], ['location', 'location', 6], ['before', 'level_before', 2], ['after', 'level_after', 2], ['volume', 'volume', 2]]), rows },
    {
      type: 'text',
      header: word(locale, 'summary'),
      data: [
        { k: word(locale, 'level_start'), v: vol(t.first) },
        { k: word(locale, 'level_end'), v: vol(t.last) },
        { k: word(locale, 'fills'), v: fmt.number(t.fills) },
        { k: word(locale, 'filled'), v: vol(t.filled) },
        { k: word(locale, 'drains'), v: fmt.number(t.drains) },
        { k: word(locale, 'drained'), v: vol(t.drained) },
        { k: word(locale, 'consumed'), v: vol(t.consumed) },
      ],
    },
    levelSection(ctx, p, r, s, vol),
  ];
  return { sheet: { header: tracker.label, entity_ids: [tracker.id], sections }, totals: t };
}

/** The level over time: the first reading, then one at least level_interval_minutes after the last shown, and the last reading. */
function levelSection(ctx: PluginContext, p: Params, r: LevelReading[], s: number[], vol: (x: number) => Cell): Section {
  const { fmt, locale } = ctx;
  const every = p.level_interval_minutes * 60_000;
  const rows: Row[] = [];
  let shown = -Infinity;
  for (let k = 0; k < r.length; k++) {
    if (r[k].time - shown < every && k !== r.length - 1) continue;
    shown = r[k].time;
    const data: Row['data'] = { time: fmt.dateTime(r[k].time), level: vol(s[k]) };
    if (p.show_speed) data.speed = fmt.speed(r[k].speed);
    rows.push(dataRow(data));
  }
  const cols = columns(locale, [['time', 'time', 3], ['level', 'fuel_level', 2], ...(p.show_speed ? [['speed', 'speed', 2] as [string, 'speed', number]] : [])]);
  return { type: 'table', header: word(locale, 'fuel_level'), columns: cols, rows };
}

/** A line per tracker; the total adds up the trackers measured in litres (percent of different tanks do not add up). */
function summarySheet(ctx: PluginContext, all: Array<{ tracker: ReportTracker; t: Totals | null }>): Sheet {
  const { fmt, locale } = ctx;
  const vol = (t: Totals, x: number) => (t.unit === 'litre' ? fmt.volume(x) : fmt.percent(x));
  const empty = fmt.text('');
  const rows: Row[] = all.map(({ tracker, t }) =>
    dataRow(t ? { tracker: fmt.text(tracker.label), filled: vol(t, t.filled), drained: vol(t, t.drained), consumed: vol(t, t.consumed) } : { tracker: fmt.text(tracker.label), filled: empty, drained: empty, consumed: empty }),
  );
  const litres = all.flatMap(({ t }) => (t && t.unit === 'litre' ? [t] : []));
  const sum = (f: (t: Totals) => number) => fmt.volume(litres.reduce((a, t) => a + f(t), 0));
  rows.push(totalRow({ tracker: fmt.text(word(locale, 'total')), filled: sum((t) => t.filled), drained: sum((t) => t.drained), consumed: sum((t) => t.consumed) }));
  return { header: word(locale, 'summary'), entity_ids: [], sections: [{ type: 'table', header: word(locale, 'summary'), columns: columns(locale, [['tracker', 'tracker', 4], ['filled', 'filled', 2], ['drained', 'drained', 2], ['consumed', 'consumed', 2]]), rows }] };
}
