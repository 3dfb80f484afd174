/**
 * Plugin 80, check-ins: the check-ins made with each tracker in the period (issue 8's check-ins):
 * time, place (the address stored with the check-in, else coordinates), employee, comment and the
 * label of the form filled in. Summary sheet: a line per tracker.
 */
import { z } from 'zod';
import type { Row } from '../model.ts';
import { inWindows } from '../time-filter.ts';
import { columns, dataRow, listSheets } from './sheets.ts';
import { definePlugin } from './types.ts';

const params = z.object({
  show_coordinates: z.boolean().default(false),
});

export const checkinsPlugin = definePlugin({
  id: 80,
  type: 'checkins',
  params,
  generate(ctx, p) {
    const { fmt, locale } = ctx;
    return listSheets(ctx, p.hide_empty_tabs, {
      noun: 'checkins',
      columns: columns(locale, [['n', 'n', 1], ['time', 'time', 3], ['location', 'location', 6], ['employee', 'employee', 3], ['comment', 'comment', 5], ['form', 'form', 3]]),
      async rowsOf(tracker) {
        const rows: Row[] = [];
        for (const c of await ctx.data.reportData.checkins(tracker.id, ctx.from, ctx.to)) {
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
        return { rows };
      },
    });
  },
});
