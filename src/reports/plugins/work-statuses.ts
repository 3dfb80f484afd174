/**
 * Plugin 47, work statuses: how long each tracker was in each work status (docs/statuses.md) over
 * the period: a row per stretch (the status in force at the period's start, then every change),
 * clipped to the period, and the total time per status. A stretch without a status is left out; a
 * status deleted since keeps its id (`#12`).
 */
import { z } from 'zod';
import type { Row, Sheet } from '../model.ts';
import { word } from '../i18n.ts';
import { inWindows } from '../time-filter.ts';
import { columns, dataRow, trackerDone } from './sheets.ts';
import { definePlugin } from './types.ts';

const params = z.object({});

export const workStatusesPlugin = definePlugin({
  id: 47,
  type: 'work_statuses',
  params,
  async generate(ctx, p) {
    const { fmt, locale } = ctx;
    const sheets: Sheet[] = [];
    for (const [i, tracker] of ctx.trackers.entries()) {
      const changes = await ctx.data.reportData.statusChanges(tracker.id, ctx.from, ctx.to);
      const rows: Row[] = [];
      const totals = new Map<string, number>();
      changes.forEach((c, k) => {
        if (c.status_id === null) return;
        const start = Math.max(c.changed, ctx.from);
        const end = Math.min(changes[k + 1]?.changed ?? ctx.to, ctx.to);
        if (!inWindows(ctx.windows, start)) return;
        const label = c.label ?? `#${c.status_id}`;
        const s = (end - start) / 1000;
        totals.set(label, (totals.get(label) ?? 0) + s);
        rows.push(dataRow({ n: fmt.number(rows.length + 1), status: fmt.text(label), start_time: fmt.dateTime(start), end_time: fmt.dateTime(end), duration: fmt.duration(s) }));
      });
      await trackerDone(ctx, i);
      if (!rows.length && p.hide_empty_tabs) continue;
      sheets.push({
        header: tracker.label,
        entity_ids: [tracker.id],
        sections: [
          { type: 'table', header: word(locale, 'statuses'), columns: columns(locale, [['n', 'n', 1], ['status', 'status', 4], ['start_time', 'start', 3], ['end_time', 'end', 3], ['duration', 'duration', 2]]), rows },
          { type: 'text', header: word(locale, 'summary'), data: [...totals].map(([k, s]) => ({ k, v: fmt.duration(s) })) },
        ],
      });
    }
    return sheets;
  },
});
