/**
 * Plugin 6, stops: the parkings the telemetry core found (a stop of at least the tracker's parking
 * minimum, docs/telemetry.md), clipped to the period: start, end, duration and place, with totals;
 * a summary sheet with a line per tracker.
 */
import { z } from 'zod';
import type { Row, Sheet } from '../model.ts';
import { word } from '../i18n.ts';
import { inWindows } from '../time-filter.ts';
import { columns, dataRow, totalRow, trackerDone } from './sheets.ts';
import { definePlugin, type PluginContext, type ReportTracker } from './types.ts';

const params = z.object({
  show_coordinates: z.boolean().default(false),
  /** Shorter stops are left out (minutes; 0: all parkings). */
  min_duration_minutes: z.number().int().min(0).max(10_080).default(0),
});

export const stopsPlugin = definePlugin({
  id: 6,
  type: 'stops',
  params,
  async generate(ctx, p) {
    const { fmt, locale } = ctx;
    const sheets: Sheet[] = [];
    const all: Array<{ tracker: ReportTracker; count: number; seconds: number }> = [];
    for (const [i, tracker] of ctx.trackers.entries()) {
      const rows: Row[] = [];
      let seconds = 0;
      for (const r of await ctx.data.reportData.parkings(tracker.sourceId, ctx.from, ctx.to)) {
        const start = Math.max(r.start_time, ctx.from);
        const end = Math.min(r.end_time, ctx.to);
        const s = (end - start) / 1000;
        if (!inWindows(ctx.windows, start) || s < p.min_duration_minutes * 60) continue;
        seconds += s;
        rows.push(
          dataRow({
            n: fmt.number(rows.length + 1),
            start_time: fmt.dateTime(start),
            end_time: fmt.dateTime(end),
            duration: fmt.duration(s),
            location: fmt.location(r.start_lat, r.start_lng, r.start_address ?? (await ctx.address(r.start_lat, r.start_lng)), p.show_coordinates),
          }),
        );
      }
      const count = rows.length;
      all.push({ tracker, count, seconds });
      await trackerDone(ctx, i);
      if (!count && p.hide_empty_tabs) continue;
      if (count) rows.push(totalRow({ n: fmt.text(word(locale, 'total')), duration: fmt.duration(seconds) }));
      sheets.push({
        header: tracker.label,
        entity_ids: [tracker.id],
        sections: [
          { type: 'table', header: word(locale, 'stops'), columns: stopColumns(locale), rows },
          { type: 'text', header: word(locale, 'summary'), data: [{ k: word(locale, 'stops'), v: fmt.number(count) }, { k: word(locale, 'total_duration'), v: fmt.duration(seconds) }] },
        ],
      });
    }
    if (ctx.trackers.length > 1) sheets.unshift(summarySheet(ctx, all));
    return sheets;
  },
});

const stopColumns = (locale: string) => columns(locale, [['n', 'n', 1], ['start_time', 'start', 3], ['end_time', 'end', 3], ['duration', 'duration', 2], ['location', 'location', 8]]);

function summarySheet(ctx: PluginContext, all: Array<{ tracker: ReportTracker; count: number; seconds: number }>): Sheet {
  const { fmt, locale } = ctx;
  const rows: Row[] = all.map((a) => dataRow({ tracker: fmt.text(a.tracker.label), count: fmt.number(a.count), duration: fmt.duration(a.seconds) }));
  const count = all.reduce((n, a) => n + a.count, 0);
  const seconds = all.reduce((n, a) => n + a.seconds, 0);
  rows.push(totalRow({ tracker: fmt.text(word(locale, 'total')), count: fmt.number(count), duration: fmt.duration(seconds) }));
  return { header: word(locale, 'summary'), entity_ids: [], sections: [{ type: 'table', header: word(locale, 'summary'), columns: columns(locale, [['tracker', 'tracker', 4], ['count', 'stops', 1], ['duration', 'total_duration', 2]]), rows }] };
}
