/**
 * Plugin 27, speed violations: the stretches during which a tracker went faster than `max_speed`
 * (km/h; a report parameter, so found from the fixes, not from the per-tracker `speed_limit`
 * events), lasting at least `min_duration_minutes`. A stretch starts at the first GNSS fix over the
 * limit and ends at the first one at or under it; a silence over the interval-mode gap (or the end
 * of the data in the period) ends it at its last fix over the limit. The speed is the reported one,
 * else the one implied by the leg from the previous fix, to 0.1 km/h. Rows: No., start, end, duration, top speed,
 * average speed (time-weighted over the stretch), where it started; totals, summary lines, and a
 * summary sheet when there are several trackers. The time filter keeps stretches that start in it.
 */
import { z } from 'zod';
import { distanceKm } from '../../core/geo.ts';
import { isLbs, isTrackPoint } from '../../core/point.ts';
import { DEFAULT_SETTINGS } from '../../core/telemetry.ts';
import type { StepColumns } from '../../store/reports.ts';
import type { Row, Sheet } from '../model.ts';
import { word } from '../i18n.ts';
import { inWindows } from '../time-filter.ts';
import { columns, dataRow, totalRow } from './sheets.ts';
import { definePerTrackerPlugin, type PluginContext } from './types.ts';

/** A silence this long ends a stretch (the gap after which the core sees interval mode). */
const GAP_MS = DEFAULT_SETTINGS.intervalModeGapSeconds * 1000;

const params = z.object({
  /** km/h, whatever the user's units (the sheet shows them in the user's units). */
  max_speed: z.number().int().min(1).max(1000),
  min_duration_minutes: z.number().int().min(0).max(1440),
  show_coordinates: z.boolean().default(false),
});

export interface Violation {
  start: number;
  end: number;
  maxKmh: number;
  /** Time-weighted mean speed over the stretch (the speed of its only fix when it lasted 0 s). */
  avgKmh: number;
  lat: number;
  lng: number;
}

type Step = { time: number; speed: number | null; flags: number; lat: number | null; lng: number | null };

/** The stretches over `limitKmh` of a tracker's fixes (in time order). */
export function violations(fixes: Iterable<Step>, limitKmh: number): Violation[] {
  const list = [...fixes];
  const col = (f: (s: Step) => number | null) => Float64Array.from(list, (s) => f(s) ?? NaN);
  return violationsIn({ n: list.length, time: col((s) => s.time), speed: col((s) => s.speed), flags: col((s) => s.flags), lat: col((s) => s.lat), lng: col((s) => s.lng) }, limitKmh);
}

/** `violations` over columns (null: NaN), as the store reads a month of fixes. */
export function violationsIn(c: StepColumns, limitKmh: number): Violation[] {
  const out: Violation[] = [];
  let cur: (Violation & { weighted: number }) | null = null;
  let havePrev = false;
  let prevTime = 0, prevLat = 0, prevLng = 0, prevSpeed = 0;
  const close = (end: number) => {
    const { weighted, ...v } = cur!;
    out.push({ ...v, end, avgKmh: end > v.start ? weighted / (end - v.start) : v.maxKmh });
    cur = null;
  };
  for (let i = 0; i < c.n; i++) {
    const time = c.time[i];
    const flags = c.flags[i];
    const lat = c.lat[i];
    const lng = c.lng[i];
    if (!isTrackPoint(flags, lat, lng) || isLbs(flags)) continue; // GSM LBS places imply no real speed
    const reported = c.speed[i];
    // To 0.1 km/h, as cells show raw speeds: 120 km/h sent as 33.333.. m/s is not over a limit of 120.
    const speed: number = Math.round((reported === reported ? reported : havePrev && time > prevTime ? (distanceKm(prevLat, prevLng, lat, lng) * 3_600_000) / (time - prevTime) : 0) * 10) / 10;
    if (cur && havePrev) {
      if (time - prevTime > GAP_MS) close(prevTime);
      else cur.weighted += prevSpeed * (time - prevTime);
    }
    if (speed > limitKmh) {
      if (!cur) cur = { start: time, end: time, maxKmh: speed, avgKmh: speed, lat, lng, weighted: 0 };
      else cur.maxKmh = Math.max(cur.maxKmh, speed);
    } else if (cur) close(time);
    havePrev = true;
    prevTime = time;
    prevLat = lat;
    prevLng = lng;
    prevSpeed = speed;
  }
  if (cur && havePrev) close(prevTime);
  return out;
}

interface Totals {
  label: string;
  count: number;
  seconds: number;
  maxKmh: number;
}

export const speedViolationsPlugin = definePerTrackerPlugin({
  id: 27,
  type: 'speed_violations',
  params,
  perTracker: {
    async tracker(ctx, tracker, p) {
      const { fmt, locale } = ctx;
      const rows: Row[] = [];
      const t: Totals = { label: tracker.label, count: 0, seconds: 0, maxKmh: 0 };
      for (const v of violationsIn(await ctx.data.reportData.stepColumns(tracker.sourceId, ctx.from, ctx.to), p.max_speed)) {
        const s = (v.end - v.start) / 1000;
        if (s < p.min_duration_minutes * 60 || !inWindows(ctx.windows, v.start)) continue;
        t.count++;
        t.seconds += s;
        t.maxKmh = Math.max(t.maxKmh, v.maxKmh);
        rows.push(
          dataRow({
            n: fmt.number(t.count),
            start_time: fmt.dateTime(v.start),
            end_time: fmt.dateTime(v.end),
            duration: fmt.duration(s),
            max_speed: fmt.speed(v.maxKmh),
            avg_speed: fmt.speed(v.avgKmh),
            location: fmt.location(v.lat, v.lng, await ctx.address(v.lat, v.lng), p.show_coordinates),
          }),
        );
      }
      if (!t.count && p.hide_empty_tabs) return { sheet: null, totals: t };
      if (t.count) rows.push(totalRow({ n: fmt.text(word(locale, 'total')), duration: fmt.duration(t.seconds), max_speed: fmt.speed(t.maxKmh) }));
      const sheet: Sheet = {
        header: tracker.label,
        entity_ids: [tracker.id],
        sections: [
          {
            type: 'table',
            header: word(locale, 'violations'),
            columns: columns(locale, [['n', 'n', 1], ['start_time', 'start', 3], ['end_time', 'end', 3], ['duration', 'duration', 2], ['max_speed', 'max_speed', 2], ['avg_speed', 'avg_speed', 2], ['location', 'location', 6]]),
            rows,
          },
          {
            type: 'text',
            header: word(locale, 'summary'),
            data: [
              { k: word(locale, 'speed_limit'), v: fmt.speed(p.max_speed) },
              { k: word(locale, 'violations'), v: fmt.number(t.count) },
              { k: word(locale, 'total_duration'), v: fmt.duration(t.seconds) },
              ...(t.count ? [{ k: word(locale, 'max_speed'), v: fmt.speed(t.maxKmh) }] : []),
            ],
          },
        ],
      };
      return { sheet, totals: t };
    },
    summary: (ctx, all) => summarySheet(ctx, all),
  },
});

function summarySheet(ctx: PluginContext, all: Totals[]): Sheet {
  const { fmt, locale } = ctx;
  const speed = (t: { count: number; maxKmh: number }) => (t.count ? fmt.speed(t.maxKmh) : fmt.text(''));
  const rows: Row[] = all.map((t) => dataRow({ tracker: fmt.text(t.label), count: fmt.number(t.count), duration: fmt.duration(t.seconds), max_speed: speed(t) }));
  const sum = { count: all.reduce((n, t) => n + t.count, 0), seconds: all.reduce((n, t) => n + t.seconds, 0), maxKmh: Math.max(0, ...all.map((t) => t.maxKmh)) };
  rows.push(totalRow({ tracker: fmt.text(word(locale, 'total')), count: fmt.number(sum.count), duration: fmt.duration(sum.seconds), max_speed: speed(sum) }));
  return { header: word(locale, 'summary'), entity_ids: [], sections: [{ type: 'table', header: word(locale, 'summary'), columns: columns(locale, [['tracker', 'tracker', 4], ['count', 'violations', 1], ['duration', 'total_duration', 2], ['max_speed', 'max_speed', 2]]), rows }] };
}
