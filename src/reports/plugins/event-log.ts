/**
 * Reading the event log (docs/events.md) for reports 11 and 89: every event of a tracker in the
 * period, page by page (the store answers at most a page; a month of a busy tracker is many), and
 * the cells both reports show: the event's name in the report's language, its place, its details.
 */
import type { EventRow } from '../../store/events.ts';
import { alarmText } from '../../events/types.ts';
import type { Cell } from '../model.ts';
import { word, type Word } from '../i18n.ts';
import type { PluginContext } from './types.ts';

const PAGE = 5000;

/** The tracker's events of the report's period of these types (all when absent), in time order. */
export async function* trackerEvents(ctx: PluginContext, trackerId: number, types?: string[]): AsyncGenerator<EventRow> {
  let after: { time: number; id: number } | undefined;
  for (;;) {
    const page = await ctx.data.events.list({ trackerIds: [trackerId], from: ctx.from, to: ctx.to, types, limit: PAGE, after });
    yield* page;
    if (page.length < PAGE) return;
    const last = page[page.length - 1];
    after = { time: last.time, id: last.id };
  }
}

/** The event's name: `Zone entry`, `Alarm: SOS` (the alarm's own name is not translated). */
export function eventName(locale: string, type: string, extra: Record<string, unknown>): string {
  if (type.startsWith('alarm_')) return `${word(locale, 'ev.alarm')}: ${alarmText(type, extra)}`;
  const key = `ev.${type}` as Word;
  return word(locale, key) ?? type;
}

/** The event's place (the report's geocoder; `show_coordinates` adds them), or an empty text without one. */
export async function eventPlace(ctx: PluginContext, e: EventRow, coordinates: boolean): Promise<Cell> {
  if (e.lat === null || e.lng === null) return ctx.fmt.text('');
  return ctx.fmt.location(e.lat, e.lng, await ctx.address(e.lat, e.lng), coordinates);
}

/** A zone's label, `#<id>` once it is deleted. */
export function zoneLabel(labels: ReadonlyMap<number, string>, extra: Record<string, unknown>): string {
  const id = Number(extra.zone_id);
  return labels.get(id) ?? `#${String(extra.zone_id)}`;
}
