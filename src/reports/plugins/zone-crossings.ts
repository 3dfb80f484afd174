/**
 * Plugin 89, geofence entries and exits: the `zone_enter` and `zone_exit` events of the event log
 * (the telemetry core's visits, with their hysteresis; docs/geofences.md) of the zones in `zone_ids`
 * (all the owner's zones, and those deleted since, when absent), one row each: No., time, entry or
 * exit, zone, place; summary lines count the entries and exits.
 */
import { z } from 'zod';
import { DomainError } from '../../core/errors.ts';
import type { Row, Sheet } from '../model.ts';
import { word } from '../i18n.ts';
import { inWindows } from '../time-filter.ts';
import { eventPlace, trackerEvents, zoneLabel } from './event-log.ts';
import { columns, dataRow, trackerDone } from './sheets.ts';
import { definePlugin } from './types.ts';

const params = z.object({
  zone_ids: z.array(z.number().int().min(1).max(2147483647)).max(10_000).optional(),
  show_coordinates: z.boolean().default(false),
});

export const zoneCrossingsPlugin = definePlugin({
  id: 89,
  type: 'geofence_entries_exits',
  params,
  check(store, ownerId, p) {
    if (!p.zone_ids) return;
    const missing = store.zones.missing(ownerId, p.zone_ids);
    if (missing.length) throw new DomainError(217, { ids: missing }, `List contains non-existent entities: zones ${missing.join(', ')}`);
  },
  async generate(ctx, p) {
    const { fmt, locale } = ctx;
    const labels = new Map((await ctx.data.zones.list(ctx.ownerId)).map((z) => [z.id, z.label]));
    const wanted = p.zone_ids ? new Set(p.zone_ids) : null;
    const sheets: Sheet[] = [];
    for (const [i, tracker] of ctx.trackers.entries()) {
      const rows: Row[] = [];
      let entries = 0;
      for await (const e of trackerEvents(ctx, tracker.id, ['zone_enter', 'zone_exit'])) {
        if ((wanted && !wanted.has(Number(e.extra.zone_id))) || !inWindows(ctx.windows, e.time)) continue;
        const enter = e.type === 'zone_enter';
        if (enter) entries++;
        rows.push(dataRow({ n: fmt.number(rows.length + 1), time: fmt.dateTime(e.time), event: fmt.text(word(locale, enter ? 'enter' : 'exit')), zone: fmt.text(zoneLabel(labels, e.extra)), location: await eventPlace(ctx, e, p.show_coordinates) }));
      }
      await trackerDone(ctx, i);
      if (!rows.length && p.hide_empty_tabs) continue;
      sheets.push({
        header: tracker.label,
        entity_ids: [tracker.id],
        sections: [
          { type: 'table', header: word(locale, 'title.89'), columns: columns(locale, [['n', 'n', 1], ['time', 'time', 3], ['event', 'event', 2], ['zone', 'zone', 4], ['location', 'location', 6]]), rows },
          { type: 'text', header: word(locale, 'summary'), data: [{ k: word(locale, 'entries'), v: fmt.number(entries) }, { k: word(locale, 'exits'), v: fmt.number(rows.length - entries) }] },
        ],
      });
    }
    return sheets;
  },
});
