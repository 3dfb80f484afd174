/**
 * Plugin 7, engine hours: the runs of the engine from the ignition the trackers report (fix flags):
 * a run starts at the first fix with ignition on and ends at the first with it off; a silence longer
 * than GAP_MS ends it at its last fix, and so does the end of the data. Moving time is the time
 * between consecutive fixes of a run while the speed is above the parking speed; the rest is idling.
 * Runs are clipped to the period; the time filter keeps the runs that start in its windows.
 */
import { z } from 'zod';
import { ignitionOf } from '../../core/point.ts';
import { DEFAULT_SETTINGS } from '../../core/telemetry.ts';
import type { Row, Sheet } from '../model.ts';
import { word } from '../i18n.ts';
import { inWindows } from '../time-filter.ts';
import { columns, dataRow, totalRow, trackerDone } from './sheets.ts';
import { definePlugin, type PluginContext, type ReportTracker } from './types.ts';

/** A silence this long ends a run (the tracker was off or out of reach). */
export const GAP_MS = 30 * 60_000;

const params = z.object({
  show_coordinates: z.boolean().default(false),
});

export interface EngineRun {
  start: number;
  end: number;
  movingMs: number;
  lat: number | null;
  lng: number | null;
}

/** The engine runs of a tracker's fixes (in time order). */
export function engineRuns(fixes: Iterable<{ time: number; speed: number | null; flags: number; lat: number | null; lng: number | null }>): EngineRun[] {
  const runs: EngineRun[] = [];
  let run: EngineRun | null = null;
  let last: { time: number; speed: number } | null = null;
  for (const f of fixes) {
    const on = ignitionOf(f.flags);
    if (run && last && f.time - last.time > GAP_MS) {
      runs.push(run);
      run = null;
    }
    if (run && last && last.speed > DEFAULT_SETTINGS.parkingSpeedKmh) run.movingMs += f.time - last.time;
    if (run) run.end = f.time;
    if (run && on === false) {
      runs.push(run);
      run = null;
    } else if (!run && on === true) run = { start: f.time, end: f.time, movingMs: 0, lat: f.lat, lng: f.lng };
    if (run && run.lat === null && f.lat !== null) ((run.lat = f.lat), (run.lng = f.lng));
    last = { time: f.time, speed: f.speed ?? 0 };
  }
  if (run) runs.push(run);
  return runs;
}

export const engineHoursPlugin = definePlugin({
  id: 7,
  type: 'engine_hours',
  params,
  async generate(ctx, p) {
    const { fmt, locale } = ctx;
    const sheets: Sheet[] = [];
    const all: Array<{ tracker: ReportTracker; count: number; seconds: number; moving: number }> = [];
    for (const [i, tracker] of ctx.trackers.entries()) {
      const rows: Row[] = [];
      let seconds = 0;
      let moving = 0;
      for (const r of engineRuns(ctx.store.reportData.steps(tracker.sourceId, ctx.from, ctx.to))) {
        if (!inWindows(ctx.windows, r.start)) continue;
        const s = (r.end - r.start) / 1000;
        const m = Math.min(s, r.movingMs / 1000);
        seconds += s;
        moving += m;
        rows.push(
          dataRow({
            n: fmt.number(rows.length + 1),
            start_time: fmt.dateTime(r.start),
            end_time: fmt.dateTime(r.end),
            duration: fmt.duration(s),
            moving: fmt.duration(m),
            idle: fmt.duration(s - m),
            location: r.lat === null || r.lng === null ? fmt.text('') : fmt.location(r.lat, r.lng, await ctx.address(r.lat, r.lng), p.show_coordinates),
          }),
        );
      }
      const count = rows.length;
      all.push({ tracker, count, seconds, moving });
      await trackerDone(ctx, i);
      if (!count && p.hide_empty_tabs) continue;
      if (count) rows.push(totalRow({ n: fmt.text(word(locale, 'total')), duration: fmt.duration(seconds), moving: fmt.duration(moving), idle: fmt.duration(seconds - moving) }));
      sheets.push({
        header: tracker.label,
        entity_ids: [tracker.id],
        sections: [
          { type: 'table', header: word(locale, 'intervals'), columns: columns(locale, [['n', 'n', 1], ['start_time', 'engine_on', 3], ['end_time', 'engine_off', 3], ['duration', 'duration', 2], ['moving', 'moving', 2], ['idle', 'idle', 2], ['location', 'location', 6]]), rows },
          { type: 'text', header: word(locale, 'summary'), data: [{ k: word(locale, 'count'), v: fmt.number(count) }, { k: word(locale, 'total_duration'), v: fmt.duration(seconds) }, { k: word(locale, 'moving'), v: fmt.duration(moving) }, { k: word(locale, 'idle'), v: fmt.duration(seconds - moving) }] },
        ],
      });
    }
    if (ctx.trackers.length > 1) sheets.unshift(summarySheet(ctx, all));
    return sheets;
  },
});

function summarySheet(ctx: PluginContext, all: Array<{ tracker: ReportTracker; count: number; seconds: number; moving: number }>): Sheet {
  const { fmt, locale } = ctx;
  const rows: Row[] = all.map((a) => dataRow({ tracker: fmt.text(a.tracker.label), count: fmt.number(a.count), duration: fmt.duration(a.seconds), moving: fmt.duration(a.moving), idle: fmt.duration(a.seconds - a.moving) }));
  const sum = all.reduce((s, a) => ({ count: s.count + a.count, seconds: s.seconds + a.seconds, moving: s.moving + a.moving }), { count: 0, seconds: 0, moving: 0 });
  rows.push(totalRow({ tracker: fmt.text(word(locale, 'total')), count: fmt.number(sum.count), duration: fmt.duration(sum.seconds), moving: fmt.duration(sum.moving), idle: fmt.duration(sum.seconds - sum.moving) }));
  return { header: word(locale, 'summary'), entity_ids: [], sections: [{ type: 'table', header: word(locale, 'summary'), columns: columns(locale, [['tracker', 'tracker', 4], ['count', 'count', 1], ['duration', 'total_duration', 2], ['moving', 'moving', 2], ['idle', 'idle', 2]]), rows }] };
}
