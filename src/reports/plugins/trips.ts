/**
 * Plugin 4, trips: the trips the telemetry core found (table `tracks`), a sheet per tracker with a
 * map table (start and end time and place, distance, duration, top and average speed, totals) and
 * its summary lines, and a summary sheet with a line per tracker. `filter` hides the trips track/list
 * hides (too short, circling one place); `show_coordinates` adds coordinates to the addresses.
 */
import { z } from 'zod';
import { extentDiagonalM } from '../../core/geo.ts';
import { concatColumns, type PointColumns } from '../../core/point.ts';
import { circlesOnePoint, tooSmall } from '../../tracks/filter.ts';
import type { Sheet, Row } from '../model.ts';
import { word } from '../i18n.ts';
import { inWindows } from '../time-filter.ts';
import { columns, dataRow, pointsIn, totalRow, trackLine } from './sheets.ts';
import { definePerTrackerPlugin, type PluginContext, type ReportTracker } from './types.ts';

const params = z.object({
  filter: z.boolean().default(true),
  show_coordinates: z.boolean().default(false),
});

interface Totals {
  trips: number;
  metres: number;
  seconds: number;
  maxKmh: number;
}

export const tripsPlugin = definePerTrackerPlugin({
  id: 4,
  type: 'trips',
  params,
  perTracker: {
    async tracker(ctx, tracker, p) {
      const { fmt, locale } = ctx;
      const trips = await tripsOf(ctx, tracker, p.filter);
      const t: Totals = { trips: trips.length, metres: 0, seconds: 0, maxKmh: 0 };
      const rows: Row[] = [];
      // Every address of the tracker's trips asked at once: they come from the main thread's
      // geocoder, and asking one at a time waits a thread round trip per address (most of the time
      // of a month's report; bench/reports).
      const starts = trips.map((r) => r.start_address ?? ctx.address(r.start_lat, r.start_lng));
      const ends = trips.map((r) => r.end_address ?? ctx.address(r.end_lat, r.end_lng));
      for (const [k, r] of trips.entries()) {
        const seconds = (r.end_time - r.start_time) / 1000;
        t.metres += r.length_km * 1000;
        t.seconds += seconds;
        t.maxKmh = Math.max(t.maxKmh, r.max_speed);
        rows.push(
          dataRow({
            n: fmt.number(k + 1),
            start_time: fmt.dateTime(r.start_time),
            start_address: fmt.location(r.start_lat, r.start_lng, await starts[k], p.show_coordinates),
            end_time: fmt.dateTime(r.end_time),
            end_address: fmt.location(r.end_lat, r.end_lng, await ends[k], p.show_coordinates),
            length: fmt.distance(r.length_km * 1000),
            duration: fmt.duration(seconds),
            max_speed: fmt.speed(r.max_speed),
            avg_speed: fmt.speed(r.avg_speed),
          }),
        );
      }
      const totals = { label: tracker.label, t };
      if (!rows.length && p.hide_empty_tabs) return { sheet: null, totals };
      if (rows.length) rows.push(totalRow({ n: fmt.text(word(locale, 'total')), length: fmt.distance(t.metres), duration: fmt.duration(t.seconds), max_speed: fmt.speed(t.maxKmh), avg_speed: fmt.speed(avg(t)) }));
      const cols = trips.length ? await tripPoints(ctx, tracker, trips) : undefined;
      const sheet: Sheet = {
        header: tracker.label,
        entity_ids: [tracker.id],
        sections: [
          {
            type: 'map_table',
            header: word(locale, 'trips'),
            columns: columns(locale, [['n', 'n', 1], ['start_time', 'start', 3], ['start_address', 'start_address', 6], ['end_time', 'end', 3], ['end_address', 'end_address', 6], ['length', 'distance', 2], ['duration', 'duration', 2], ['max_speed', 'max_speed', 2], ['avg_speed', 'avg_speed', 2]]),
            rows,
            track: cols ? trackLine(cols, pointsIn(cols, trips.map((r) => [r.start_time, r.end_time]))) : [],
          },
          { type: 'text', header: word(locale, 'summary'), data: summaryLines(ctx, t) },
        ],
      };
      return { sheet, totals };
    },
    summary: summarySheet,
  },
});

/** Trips further apart than this are read as separate spans of points (a night, a day off between them). */
const SPAN_GAP_MS = 4 * 3_600_000;

/**
 * The points of the trips' spans, read a span of nearby trips at a time: one read from the month's
 * first trip to its last decoded every night and day off too (most of the trips report's reading;
 * bench/reports). The spans hold every trip, so the points kept (pointsIn) are the same.
 */
async function tripPoints(ctx: PluginContext, tracker: ReportTracker, trips: Array<{ start_time: number; end_time: number }>): Promise<PointColumns> {
  const parts: PointColumns[] = [];
  let from = trips[0].start_time;
  let to = trips[0].end_time;
  for (const r of trips) {
    if (r.start_time - to > SPAN_GAP_MS) {
      parts.push(await ctx.data.tracks.columns(tracker.sourceId, from, to, false));
      from = r.start_time;
    }
    to = Math.max(to, r.end_time);
  }
  parts.push(await ctx.data.tracks.columns(tracker.sourceId, from, to, false));
  return parts.length === 1 ? parts[0] : concatColumns(parts);
}

const avg = (t: Totals) => (t.seconds ? (t.metres / 1000) / (t.seconds / 3600) : 0);

/**
 * Trips starting in the period (and in the time filter's windows), visible under `filter` (the
 * rule of src/tracks/filter.ts: the extent read only when the cheap checks pass).
 */
async function tripsOf(ctx: PluginContext, tracker: ReportTracker, filter: boolean) {
  const tracks = ctx.data.tracks;
  const shown = [];
  for (const r of await tracks.inRange(tracker.sourceId, ctx.from, ctx.to)) {
    if (r.type !== 'trip' || !inWindows(ctx.windows, r.start_time)) continue;
    if (filter) {
      if (tooSmall({ lengthKm: r.length_km, points: r.points })) continue;
      if (circlesOnePoint(r.extent_m != null ? r.extent_m : extentDiagonalM(await tracks.extent(tracker.sourceId, r.start_time, r.end_time)))) continue;
    }
    shown.push(r);
  }
  return shown;
}

function summaryLines(ctx: PluginContext, t: Totals) {
  const { fmt, locale } = ctx;
  return [
    { k: word(locale, 'trips'), v: fmt.number(t.trips) },
    { k: word(locale, 'total_distance'), v: fmt.distance(t.metres) },
    { k: word(locale, 'driving_time'), v: fmt.duration(t.seconds) },
    { k: word(locale, 'max_speed'), v: fmt.speed(t.maxKmh) },
    { k: word(locale, 'avg_speed'), v: fmt.speed(avg(t)) },
  ];
}

function summarySheet(ctx: PluginContext, all: Array<{ label: string; t: Totals }>): Sheet {
  const { fmt, locale } = ctx;
  const sum: Totals = { trips: 0, metres: 0, seconds: 0, maxKmh: 0 };
  const rows: Row[] = all.map(({ label, t }) => {
    sum.trips += t.trips;
    sum.metres += t.metres;
    sum.seconds += t.seconds;
    sum.maxKmh = Math.max(sum.maxKmh, t.maxKmh);
    return dataRow({ tracker: fmt.text(label), trips: fmt.number(t.trips), length: fmt.distance(t.metres), duration: fmt.duration(t.seconds), max_speed: fmt.speed(t.maxKmh), avg_speed: fmt.speed(avg(t)) });
  });
  rows.push(totalRow({ tracker: fmt.text(word(locale, 'total')), trips: fmt.number(sum.trips), length: fmt.distance(sum.metres), duration: fmt.duration(sum.seconds), max_speed: fmt.speed(sum.maxKmh), avg_speed: fmt.speed(avg(sum)) }));
  return {
    header: word(locale, 'summary'),
    entity_ids: [],
    sections: [{ type: 'table', header: word(locale, 'summary'), columns: columns(locale, [['tracker', 'tracker', 4], ['trips', 'trips', 1], ['length', 'distance', 2], ['duration', 'driving_time', 2], ['max_speed', 'max_speed', 2], ['avg_speed', 'avg_speed', 2]]), rows }],
  };
}
