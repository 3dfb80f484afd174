/**
 * Plugin 91, point report: every located fix of a day at most (211 with max_time_span P1D beyond
 * it): time, place, speed, altitude, satellites and the attributes asked for (`attributes`: names
 * of the fix attributes the protocols decode, e.g. `power`, `battery_level`), on a map table with
 * the track. Addresses only with `show_address` (a day of 1 s fixes is 86,400 look-ups).
 */
import { z } from 'zod';
import { isTrackPoint } from '../../core/point.ts';
import type { Cell, Row, Sheet } from '../model.ts';
import type { Formatter } from '../format.ts';
import { word } from '../i18n.ts';
import { inWindows } from '../time-filter.ts';
import { columns, dataRow, trackerDone, TRACK_POINTS } from './sheets.ts';
import { definePlugin } from './types.ts';
import { simplifyLine } from '../../tracks/simplify.ts';

const params = z.object({
  show_coordinates: z.boolean().default(true),
  show_address: z.boolean().default(false),
  attributes: z.array(z.string().regex(/^[a-z0-9_]{1,64}$/, 'attribute names: a-z, 0-9 and _')).max(32).default([]),
});

export const pointsPlugin = definePlugin({
  id: 91,
  type: 'points',
  params,
  maxSpanDays: 1,
  async generate(ctx, p) {
    const { fmt, locale } = ctx;
    const sheets: Sheet[] = [];
    for (const [i, tracker] of ctx.trackers.entries()) {
      const rows: Row[] = [];
      const lat: number[] = [];
      const lng: number[] = [];
      const fixes = await ctx.data.reportData.fixes(tracker.sourceId, ctx.from, ctx.to);
      for (const [k, f] of fixes.entries()) {
        // A day of 1 s fixes is a long stretch of work: percent moves within the tracker too.
        if (k % 5000 === 4999) await ctx.progress((i + k / fixes.length) / ctx.trackers.length);
        if (!isTrackPoint(f.flags, f.lat, f.lng) || !inWindows(ctx.windows, f.time)) continue;
        lat.push(f.lat!);
        lng.push(f.lng!);
        const data: Row['data'] = {
          n: fmt.number(rows.length + 1),
          time: fmt.dateTime(f.time),
          location: fmt.location(f.lat!, f.lng!, p.show_address ? await ctx.address(f.lat!, f.lng!) : '', p.show_coordinates),
          speed: fmt.speed(f.speed ?? 0),
          alt: fmt.number(Math.round(f.alt ?? 0)),
          satellites: fmt.number(f.satellites ?? 0),
        };
        if (p.attributes.length) {
          const attrs = f.attrs ? (JSON.parse(f.attrs) as Record<string, unknown>) : {};
          for (const a of p.attributes) data[`attr_${a}`] = attributeCell(attrs[a], fmt);
        }
        rows.push(dataRow(data));
      }
      await trackerDone(ctx, i);
      if (!rows.length && p.hide_empty_tabs) continue;
      const kept = lat.length > TRACK_POINTS ? simplifyLine(lat, lng, TRACK_POINTS) : Int32Array.from(lat.keys());
      sheets.push({
        header: tracker.label,
        entity_ids: [tracker.id],
        sections: [
          {
            type: 'map_table',
            header: word(locale, 'points'),
            columns: [
              ...columns(locale, [['n', 'n', 1], ['time', 'time', 3], ['location', 'location', 6], ['speed', 'speed', 2], ['alt', 'altitude', 2], ['satellites', 'satellites', 1]]),
              ...p.attributes.map((a) => ({ field: `attr_${a}`, title: a, weight: 2 })),
            ],
            rows,
            track: Array.from(kept, (k) => [lat[k], lng[k]] as [number, number]),
          },
        ],
      });
    }
    return sheets;
  },
});

function attributeCell(v: unknown, fmt: Formatter): Cell {
  if (typeof v === 'number' && Number.isFinite(v)) return fmt.number(v);
  if (v === undefined || v === null) return fmt.text('');
  return fmt.text(typeof v === 'string' ? v : JSON.stringify(v));
}
