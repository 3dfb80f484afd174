/**
 * Plugin 70, form completion statistics: the forms attached to the tasks (and checkpoints) of the
 * report's trackers that start in the period, counted per form template (`group_by: "template"`,
 * the default) or per tracker / employee (`"employee"`): attached, submitted, submitted late (after
 * the task's window ended) and completion (submitted / attached, %). One sheet with a total line.
 * A form whose template was deleted counts under the form's own label.
 */
import { z } from 'zod';
import { word } from '../i18n.ts';
import type { Row, Sheet } from '../model.ts';
import { inWindows } from '../time-filter.ts';
import { columns, dataRow, totalRow, trackerDone } from './sheets.ts';
import { definePlugin } from './types.ts';

const params = z.object({
  group_by: z.enum(['template', 'employee']).default('template'),
});

interface Tally {
  name: string;
  attached: number;
  submitted: number;
  late: number;
}

export const formCompletionPlugin = definePlugin({
  id: 70,
  type: 'form_completion',
  params,
  async generate(ctx, p) {
    const { fmt, locale } = ctx;
    const groups = new Map<string, Tally>();
    const total: Tally = { name: word(locale, 'total'), attached: 0, submitted: 0, late: 0 };
    for (const [i, tracker] of ctx.trackers.entries()) {
      for (const f of await ctx.data.reportData.taskForms(tracker.id, ctx.from, ctx.to)) {
        if (!inWindows(ctx.windows, f.from_time)) continue;
        const key = p.group_by === 'employee' ? `t${tracker.id}` : f.template_id !== null && f.template_label !== null ? `f${f.template_id}` : `l${f.label}`;
        let g = groups.get(key);
        if (!g) groups.set(key, (g = { name: p.group_by === 'employee' ? tracker.label : (f.template_label ?? f.label), attached: 0, submitted: 0, late: 0 }));
        const late = f.submitted !== null && f.to_time !== null && f.submitted > f.to_time;
        for (const t of [g, total]) {
          t.attached++;
          if (f.submitted !== null) t.submitted++;
          if (late) t.late++;
        }
      }
      await trackerDone(ctx, i);
    }
    const row = (t: Tally) => ({
      name: fmt.text(t.name),
      attached: fmt.number(t.attached),
      submitted: fmt.number(t.submitted),
      late: fmt.number(t.late),
      completion: fmt.number(t.attached ? Math.round((t.submitted / t.attached) * 1000) / 10 : 0),
    });
    const rows: Row[] = [...groups.values()].map((t) => dataRow(row(t)));
    if (!rows.length && p.hide_empty_tabs) return [];
    rows.push(totalRow(row(total)));
    const sheet: Sheet = {
      header: word(locale, 'title.70'),
      entity_ids: ctx.trackers.map((t) => t.id),
      sections: [
        {
          type: 'table',
          header: word(locale, 'title.70'),
          columns: columns(locale, [['name', p.group_by === 'employee' ? 'employee' : 'template', 4], ['attached', 'forms_attached', 2], ['submitted', 'forms_submitted', 2], ['late', 'forms_late', 2], ['completion', 'completion', 2]]),
          rows,
        },
      ],
    };
    return [sheet];
  },
});
