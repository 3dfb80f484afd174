/**
 * Plugin 42, tasks: the tasks (and route checkpoints) assigned to each tracker that start in the
 * period: label, address, window, status (the spec's status values), arrival, stay and completion as
 * the telemetry core judged them (docs/tasks.md). Summary lines: the count per status; a summary
 * sheet with a line per tracker when there are several.
 */
import { z } from 'zod';
import type { Row } from '../model.ts';
import { inWindows } from '../time-filter.ts';
import { columns, dataRow, listSheets } from './sheets.ts';
import { definePlugin } from './types.ts';

const params = z.object({
  show_coordinates: z.boolean().default(false),
});

export const tasksPlugin = definePlugin({
  id: 42,
  type: 'tasks',
  params,
  generate(ctx, p) {
    const { fmt, locale } = ctx;
    return listSheets(ctx, p.hide_empty_tabs, {
      noun: 'tasks',
      columns: columns(locale, [['n', 'n', 1], ['label', 'task', 4], ['address', 'address', 5], ['from', 'start', 3], ['to', 'end', 3], ['status', 'status', 2], ['arrival', 'arrival', 3], ['stay', 'stay', 2], ['completed', 'completed', 3]]),
      async rowsOf(tracker) {
        const rows: Row[] = [];
        const byStatus = new Map<string, number>();
        for (const t of await ctx.data.reportData.tasks(tracker.id, ctx.from, ctx.to)) {
          if (!inWindows(ctx.windows, t.from_time)) continue;
          byStatus.set(t.status, (byStatus.get(t.status) ?? 0) + 1);
          rows.push(
            dataRow({
              n: fmt.number(rows.length + 1),
              label: fmt.text(t.label),
              address: t.lat === null || t.lng === null ? fmt.text(t.address) : fmt.location(t.lat, t.lng, t.address, p.show_coordinates),
              from: fmt.dateTime(t.from_time),
              to: t.to_time === null ? fmt.text('') : fmt.dateTime(t.to_time),
              status: fmt.text(t.status),
              arrival: t.arrival_date === null ? fmt.text('') : fmt.dateTime(t.arrival_date),
              stay: fmt.duration(t.stay_duration),
              completed: t.completion_date === null ? fmt.text('') : fmt.dateTime(t.completion_date),
            }),
          );
        }
        return { rows, lines: [...byStatus].map(([k, n]) => ({ k, v: fmt.number(n) })) };
      },
    });
  },
});
