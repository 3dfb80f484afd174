/**
 * Plugin 11, all events: the event log (docs/events.md) of each tracker in the period, of the types
 * in `event_types` (all when absent or empty): No., time, event, place, details, in time order; a
 * summary of the count per event. Speeds and durations in the details follow the user's units.
 */
import { z } from 'zod';
import type { EventRow } from '../../store/events.ts';
import { EVENT_TYPES } from '../../events/types.ts';
import type { Row, Sheet } from '../model.ts';
import { word } from '../i18n.ts';
import { inWindows } from '../time-filter.ts';
import { eventName, eventPlace, trackerEvents, zoneLabel } from './event-log.ts';
import { columns, dataRow, trackerDone } from './sheets.ts';
import { definePlugin, type PluginContext } from './types.ts';

const params = z.object({
  event_types: z
    .array(z.string().refine((t) => EVENT_TYPES.has(t), 'not an event type (docs/events.md)'))
    .max(200)
    .optional(),
  show_coordinates: z.boolean().default(false),
});

export const eventsPlugin = definePlugin({
  id: 11,
  type: 'events',
  params,
  async generate(ctx, p) {
    const { fmt, locale } = ctx;
    const types = p.event_types?.length ? p.event_types : undefined;
    const labels = new Map((await ctx.data.zones.list(ctx.ownerId)).map((z) => [z.id, z.label]));
    const sheets: Sheet[] = [];
    for (const [i, tracker] of ctx.trackers.entries()) {
      const rows: Row[] = [];
      const counts = new Map<string, number>();
      for await (const e of trackerEvents(ctx, tracker.id, types)) {
        if (!inWindows(ctx.windows, e.time)) continue;
        const name = eventName(locale, e.type, e.extra);
        counts.set(name, (counts.get(name) ?? 0) + 1);
        rows.push(dataRow({ n: fmt.number(rows.length + 1), time: fmt.dateTime(e.time), event: fmt.text(name), location: await eventPlace(ctx, e, p.show_coordinates), details: fmt.text(details(ctx, e, labels)) }));
      }
      await trackerDone(ctx, i);
      if (!rows.length && p.hide_empty_tabs) continue;
      sheets.push({
        header: tracker.label,
        entity_ids: [tracker.id],
        sections: [
          { type: 'table', header: word(locale, 'events'), columns: columns(locale, [['n', 'n', 1], ['time', 'time', 3], ['event', 'event', 3], ['location', 'location', 6], ['details', 'details', 5]]), rows },
          { type: 'text', header: word(locale, 'summary'), data: [{ k: word(locale, 'events'), v: fmt.number(rows.length) }, ...[...counts].map(([k, n]) => ({ k, v: fmt.number(n) }))] },
        ],
      });
    }
    return sheets;
  },
});

/** What the event's members say, in the report's words and units ('' when nothing more). */
function details(ctx: PluginContext, e: EventRow, zones: ReadonlyMap<number, string>): string {
  const { fmt, locale } = ctx;
  const x = e.extra;
  const num = (v: unknown) => Number(v);
  const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  const line = (...parts: Array<[Parameters<typeof word>[1], string]>) => parts.map(([k, v]) => `${word(locale, k)}: ${v}`).join(', ');
  switch (e.type) {
    case 'zone_enter':
    case 'zone_exit':
      return zoneLabel(zones, x);
    case 'speeding_start':
      return line(['speed', fmt.speed(num(x.speed)).v], ['speed_limit', fmt.speed(num(x.speed_limit)).v]);
    case 'speeding_end':
      return line(['max_speed', fmt.speed(num(x.max_speed)).v], ['speed_limit', fmt.speed(num(x.speed_limit)).v], ['duration', fmt.duration(num(x.duration)).v]);
    case 'parking_end':
      return line(['duration', fmt.duration(num(x.duration)).v]);
    case 'connection_restored':
      return line(['duration', fmt.duration(num(x.lost_duration)).v]);
    case 'checkin_created':
      return str(x.comment);
    case 'work_status_changed':
      return x.old_status_label ? `${str(x.old_status_label)} → ${str(x.new_status_label)}` : str(x.new_status_label);
    case 'task_status_changed':
      return `${str(x.task_label)}: ${str(x.old_status)} → ${str(x.new_status)}`;
    case 'form_submitted':
      return str(x.form_label);
    default:
      return '';
  }
}
