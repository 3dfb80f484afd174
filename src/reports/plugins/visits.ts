/**
 * Plugin 8, geofence visits: the stays inside zones the telemetry core recorded (table `visits`:
 * entered at the first point inside, left at the first point outside), of the zones in `zone_ids`
 * (all the owner's zones when absent), at least `min_minutes_in_zone` long, clipped to the period.
 * A visit still going on ends at the period's end. Summary sheet: a line per tracker.
 */
import { z } from 'zod';
import { DomainError } from '../../core/errors.ts';
import type { Row, Sheet } from '../model.ts';
import { word } from '../i18n.ts';
import { inWindows } from '../time-filter.ts';
import { columns, dataRow, totalRow, trackerDone } from './sheets.ts';
import { definePlugin, type PluginContext, type ReportTracker } from './types.ts';

const params = z.object({
  zone_ids: z.array(z.number().int().min(1).max(2147483647)).max(10_000).optional(),
  min_minutes_in_zone: z.number().int().min(0).max(10_080).default(0),
});

export const visitsPlugin = definePlugin({
  id: 8,
  type: 'geofence_visits',
  params,
  check(store, ownerId, p) {
    if (!p.zone_ids) return;
    const missing = store.zones.missing(ownerId, p.zone_ids);
    if (missing.length) throw new DomainError(217, { ids: missing }, `List contains non-existent entities: zones ${missing.join(', ')}`);
  },
  async generate(ctx, p) {
    const { fmt, locale } = ctx;
    const labels = new Map((await ctx.data.zones.list(ctx.ownerId)).map((z) => [z.id, z.label]));
    const wanted = new Set(p.zone_ids ?? labels.keys());
    const sheets: Sheet[] = [];
    const all: Array<{ tracker: ReportTracker; count: number; seconds: number }> = [];
    for (const [i, tracker] of ctx.trackers.entries()) {
      const rows: Row[] = [];
      let seconds = 0;
      for (const v of await ctx.data.reportData.zoneVisits(tracker.sourceId, ctx.from, ctx.to)) {
        if (!wanted.has(v.geo_id) || !labels.has(v.geo_id)) continue;
        const enter = Math.max(v.enter_time, ctx.from);
        const exit = Math.min(v.exit_time ?? ctx.to, ctx.to);
        const s = (exit - enter) / 1000;
        if (!inWindows(ctx.windows, enter) || s < p.min_minutes_in_zone * 60) continue;
        seconds += s;
        rows.push(dataRow({ n: fmt.number(rows.length + 1), zone: fmt.text(labels.get(v.geo_id)!), enter: fmt.dateTime(enter), exit: fmt.dateTime(exit), duration: fmt.duration(s) }));
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
          { type: 'table', header: word(locale, 'visits'), columns: columns(locale, [['n', 'n', 1], ['zone', 'zone', 5], ['enter', 'enter', 3], ['exit', 'exit', 3], ['duration', 'duration', 2]]), rows },
          { type: 'text', header: word(locale, 'summary'), data: [{ k: word(locale, 'visits'), v: fmt.number(count) }, { k: word(locale, 'total_duration'), v: fmt.duration(seconds) }] },
        ],
      });
    }
    if (ctx.trackers.length > 1) sheets.unshift(summarySheet(ctx, all));
    return sheets;
  },
});

function summarySheet(ctx: PluginContext, all: Array<{ tracker: ReportTracker; count: number; seconds: number }>): Sheet {
  const { fmt, locale } = ctx;
  const rows: Row[] = all.map((a) => dataRow({ tracker: fmt.text(a.tracker.label), count: fmt.number(a.count), duration: fmt.duration(a.seconds) }));
  rows.push(totalRow({ tracker: fmt.text(word(locale, 'total')), count: fmt.number(all.reduce((n, a) => n + a.count, 0)), duration: fmt.duration(all.reduce((n, a) => n + a.seconds, 0)) }));
  return { header: word(locale, 'summary'), entity_ids: [], sections: [{ type: 'table', header: word(locale, 'summary'), columns: columns(locale, [['tracker', 'tracker', 4], ['count', 'visits', 1], ['duration', 'total_duration', 2]]), rows }] };
}
