/**
 * Plugin 80, check-ins: the check-ins made with each tracker in the period (issue 8's check-ins):
 * time, place (the address stored with the check-in, else coordinates), employee, comment and the
 * label of the form filled in. Summary sheet: a line per tracker.
 */
import { z } from 'zod';
import type { Row, Sheet } from '../model.ts';
import { word } from '../i18n.ts';
import { inWindows } from '../time-filter.ts';
import { columns, dataRow, totalRow, trackerDone } from './sheets.ts';
import { definePlugin } from './types.ts';

const params = z.object({
  show_coordinates: z.boolean().default(false),
});

export const checkinsPlugin = definePlugin({
  id: 80,
  type: 'checkins',
  params,
  async generate(ctx, p) {
    const { fmt, locale } = ctx;
    const sheets: Sheet[] = [];
    const counts: Array<[string, number]> = [];
    for (const [i, tracker] of ctx.trackers.entries()) {
      const rows: Row[] = [];
      for (const c of ctx.store.reportData.checkins(tracker.id, ctx.from, ctx.to)) {
        if (!inWindows(ctx.windows, c.marker_time)) continue;
        rows.push(
          dataRow({
            n: fmt.number(rows.length + 1),
            time: fmt.dateTime(c.marker_time),
            location: fmt.location(c.lat, c.lng, c.address, p.show_coordinates),
            employee: fmt.text(c.employee ?? ''),
            comment: fmt.text(c.comment ?? ''),
            form: fmt.text(c.form ?? ''),
          }),
        );
      }
      counts.push([tracker.label, rows.length]);
      trackerDone(ctx, i);
      if (!rows.length && p.hide_empty_tabs) continue;
      sheets.push({
        header: tracker.label,
        entity_ids: [tracker.id],
        sections: [
          { type: 'table', header: word(locale, 'checkins'), columns: columns(locale, [['n', 'n', 1], ['time', 'time', 3], ['location', 'location', 6], ['employee', 'employee', 3], ['comment', 'comment', 5], ['form', 'form', 3]]), rows },
          { type: 'text', header: word(locale, 'summary'), data: [{ k: word(locale, 'checkins'), v: fmt.number(rows.length) }] },
        ],
      });
    }
    if (ctx.trackers.length > 1) {
      const rows = counts.map(([label, n]) => dataRow({ tracker: fmt.text(label), count: fmt.number(n) }));
      rows.push(totalRow({ tracker: fmt.text(word(locale, 'total')), count: fmt.number(counts.reduce((a, [, n]) => a + n, 0)) }));
      sheets.unshift({ header: word(locale, 'summary'), entity_ids: [], sections: [{ type: 'table', header: word(locale, 'summary'), columns: columns(locale, [['tracker', 'tracker', 4], ['count', 'checkins', 1]]), rows }] });
    }
    return sheets;
  },
});
