/**
 * history/tracker/list (issue 12; docs/events.md): the event log of the user's trackers in a
 * period, in time order, as the API the spec describes answers its history calls. No right is
 * needed beyond owning the trackers. Errors: 7 naming the parameter (bad time, `to` not after
 * `from`, an unknown type, limit out of 1..10000, too many trackers), 217 for trackers that are not
 * the user's, deleted or blocked (their ids in `ids`), 211 for a period over the user's tariff's
 * max_time_span_days (31 by default).
 */
import { z } from 'zod';
import type { GeocoderType } from '../geocoder/types.ts';
import type { EventRow } from '../store/events.ts';
import { formatDateTime, parseDateTime } from '../core/time.ts';
import { DomainError, invalidParams } from '../core/errors.ts';
import { EVENT_TYPES, eventMessage } from '../events/types.ts';
import { defineCall, type Services } from './kernel.ts';
import { id } from './schemas.ts';

const DAY = 86_400_000;
export const MAX_HISTORY_TRACKERS = 1000;
const dateTime = z.string().regex(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/, 'expected yyyy-MM-dd HH:mm:ss');
/** Members of `extra` that hold an instant (ms UTC in the store, user time in the answer). */
const TIME_MEMBERS = ['start', 'since'];

function parseTime(v: string, parameter: string, tz: string): number {
  const ms = parseDateTime(v, tz);
  if (ms === undefined) throw invalidParams([{ parameter, error: 'expected yyyy-MM-dd HH:mm:ss' }]);
  return ms;
}

const list = defineCall({
  path: 'history/tracker/list',
  summary: `Events of the user's trackers in a period (docs/events.md), in time order, at most limit (default 1000, up to 10000). 217 for trackers not available; 211 over the tariff's max_time_span_days (31 by default).`,
  params: z.object({
    trackers: z.array(id).min(1).max(MAX_HISTORY_TRACKERS),
    from: dateTime,
    to: dateTime,
    // `events` is the documented name of the filter; `types` is ours, still taken.
    events: z.array(z.string().max(64)).max(100).optional(),
    types: z.array(z.string().max(64)).max(100).optional(),
    limit: z.number().int().min(1).max(10_000).default(1000),
    ascending: z.boolean().default(true),
    only_emergency: z.boolean().default(false),
    // No read marks are kept: every entry is unread, so only_unread changes nothing.
    only_unread: z.boolean().default(false),
    add_tracker_label: z.boolean().default(true),
    add_tracker_files: z.boolean().default(false),
  }),
  async handler({ services, owner, user, params: p }) {
    const data = services.store.data;
    const tz = user.time_zone;
    const from = parseTime(p.from, 'from', tz);
    const to = parseTime(p.to, 'to', tz);
    if (to <= from) throw invalidParams([{ parameter: 'to', error: 'must be after from' }]);
    const filter = p.events?.length ? 'events' : 'types';
    let types = p.events?.length ? p.events : p.types?.length ? p.types : undefined;
    const unknown = (types ?? []).filter((t) => !EVENT_TYPES.has(t));
    if (unknown.length) throw invalidParams([{ parameter: filter, error: `unknown event types: ${unknown.join(', ')} (docs/events.md lists them)` }]);
    if (p.only_emergency) types = (types ?? [...EVENT_TYPES]).filter(isEmergency);
    const trackers = [...new Set(p.trackers)];
    const bad: number[] = [];
    for (const t of trackers) {
      const row = await data.trackers.get(owner.id, t);
      if (!row || row.blocked) bad.push(t);
    }
    if (bad.length) throw new DomainError(217, { ids: bad }, `List contains non-existent entities: trackers ${bad.join(', ')}`);
    const maxDays = (await data.tariffs.get(owner.tariff_id))?.max_time_span_days ?? 31;
    if (to - from > maxDays * DAY) throw new DomainError(211, { max_time_span: `P${maxDays}D` }, `Requested time span is too big: at most ${maxDays} days`);
    const query = { trackerIds: trackers, from, to, types };
    const total = types?.length === 0 ? 0 : await data.events.count(query);
    const rows = types?.length === 0 ? [] : await data.events.list({ ...query, limit: p.limit, descending: !p.ascending });
    const list = await views(services, owner.id, user, rows, p.add_tracker_label);
    // Every entry is unread (no read marks are kept): total_unread is total.
    return { list, limit_exceeded: total > rows.length, total, total_unread: total };
  },
});

/** The answer's entries: user times, addresses from the user's geocoder, the human text. */
async function views(services: Services, ownerId: number, user: { time_zone: string; default_geocoder: string; locale: string }, rows: EventRow[], withLabel: boolean): Promise<unknown[]> {
  const tz = user.time_zone;
  const data = services.store.data;
  // The labels the entries name, read once each before the entries are built.
  const labels = new Map<number, string | undefined>();
  const zones = new Map<number, string | undefined>();
  for (const r of rows) {
    if (withLabel && !labels.has(r.tracker_id)) labels.set(r.tracker_id, (await data.trackers.get(ownerId, r.tracker_id))?.label);
    const zid = r.type === 'zone_enter' || r.type === 'zone_exit' ? Number(r.extra.zone_id) : undefined;
    if (zid !== undefined && !zones.has(zid)) zones.set(zid, (await data.zones.get(ownerId, zid))?.label);
  }
  const trackerLabel = (tid: number) => labels.get(tid) ?? null;
  const names = { zone: (zid: number) => zones.get(zid) };
  const opts = { type: user.default_geocoder as GeocoderType, lang: user.locale };
  const memo = new Map<string, Promise<string>>();
  const address = (lat: number | null, lng: number | null): Promise<string> => {
    if (lat === null || lng === null) return Promise.resolve('');
    const key = `${lat},${lng}`;
    let a = memo.get(key);
    if (!a) {
      a = services.geocoder.reverse(lat, lng, opts).then((r) => r?.address ?? '', () => '');
      memo.set(key, a);
    }
    return a;
  };
  return Promise.all(
    rows.map(async (r) => {
      const extra: Record<string, unknown> = { ...r.extra };
      for (const k of TIME_MEMBERS) if (typeof extra[k] === 'number') extra[k] = formatDateTime(extra[k] as number, tz);
      if (r.type === 'zone_enter' || r.type === 'zone_exit') extra.zone_label = names.zone(Number(r.extra.zone_id)) ?? null;
      if (withLabel) extra.tracker_label = trackerLabel(r.tracker_id);
      extra.emergency = isEmergency(r.type);
      const addr = r.lat === null || r.lng === null ? '' : await address(r.lat, r.lng);
      // The documented entry: `type` is the kind of history (always "tracker" here), `event` the event type.
      return {
        id: r.id,
        type: 'tracker',
        event: r.type,
        is_read: false,
        tracker_id: r.tracker_id,
        rule_id: null,
        track_id: null,
        time: formatDateTime(r.time, tz),
        location: r.lat === null || r.lng === null ? null : { lat: r.lat, lng: r.lng, address: addr },
        address: addr,
        message: eventMessage(r.type, r.extra, names),
        extra,
      };
    }),
  );
}

/** Alarms (SOS, power cut, ...) are the emergency events (`only_emergency`, `extra.emergency`). */
const isEmergency = (type: string) => type.startsWith('alarm_');

export const historyCalls = [list];
