/**
 * Track calls (spec: Tracks, base path /track; issue 5): track/list, track/read, track/download.
 * Segments come from `tracks` (written by the telemetry core), points from `fixes`. docs/tracks.md
 * states every decision: the period checks (code 7 naming `to`, 211 over the user's tariff's
 * max_time_span_days, limit_exceeded over the tracker tariff's track_storage_days), `filter`,
 * `parking` points, clusters, simplification and the KML layout.
 */
import { zip } from 'fflate';
import { z } from 'zod';
import type { GeocoderType } from '../geocoder/types.ts';
import type { PointRow, TrackRow } from '../store/tracks.ts';
import type { TrackerRow } from '../store/trackers.ts';
import type { UserRow } from '../store/users.ts';
import { DEFAULT_SETTINGS } from '../telemetry/types.ts';
import { formatDateTime, parseDateTime } from '../core/time.ts';
import { describeTracks, type AddressedTrack } from '../tracks/describe.ts';
import { circlesOnePoint, tooSmall } from '../tracks/filter.ts';
import { keepDays } from '../retention/retention.ts';
import { extentDiagonalM } from '../core/geo.ts';
import { concatColumns, isLbs, type PointColumns } from '../core/point.ts';
import { trackKml, type KmlTrack } from '../tracks/kml.ts';
import { membership, outside, simplifyIndicesOff, within, type Interval } from '../tracks/points.ts';
import { DomainError, invalidParams } from '../core/errors.ts';
import { defineCall, FileAnswer, type Services } from './kernel.ts';
import { id } from './schemas.ts';
import { ownTracker } from './tracker.ts';

const DAY = 86_400_000;
const pointLimit = z.number().int().min(2).max(3000).optional();

/** The caller's view of a request: who asks, for which tracker. */
interface Ask {
  services: Services;
  owner: UserRow;
  user: UserRow;
}

/** A period after the checks: possibly clipped to the storage window. */
interface Period {
  from: number;
  to: number;
  limitExceeded: boolean;
  /** Nothing of it is within the storage window. */
  empty: boolean;
}

function parseTime(v: string, parameter: string, tz: string): number {
  const ms = parseDateTime(v, tz);
  if (ms === undefined) throw invalidParams([{ parameter, error: 'expected yyyy-MM-dd HH:mm:ss' }]);
  return ms;
}

/** from/to in the user's zone; `to` must be after `from` (code 7 naming to). */
function requestedPeriod(from: string, to: string, tz: string): { from: number; to: number } {
  const f = parseTime(from, 'from', tz);
  const t = parseTime(to, 'to', tz);
  if (t <= f) throw invalidParams([{ parameter: 'to', error: 'must be after from' }]);
  return { from: f, to: t };
}

/** The owner's tracker (204 when unknown or someone else's), not blocked (208). */
async function readableTracker(ask: Ask, trackerId: number): Promise<TrackerRow> {
  const t = await ownTracker(ask.services, ask.owner, trackerId, 204);
  if (t.blocked) throw new DomainError(208, {}, `Device blocked: tracker ${trackerId}`);
  return t;
}

/** 211 when the span is over the user's tariff maximum; clipped to the tracker tariff's storage window (limit_exceeded). */
async function checkedPeriod(ask: Ask, tracker: TrackerRow, from: number, to: number, checkSpan = true): Promise<Period> {
  const { tariffs } = ask.services.store.data;
  const maxDays = (await tariffs.get(ask.owner.tariff_id))?.max_time_span_days ?? 31;
  // max_time_span as report/tracker/generate answers it: an ISO 8601 duration (whole days here).
  if (checkSpan && to - from > maxDays * DAY) throw new DomainError(211, { max_time_span: `P${maxDays}D` });
  // The period retention keeps (0 in the tariff: no limit; FSM_RETENTION_DAYS when shorter).
  const keep = keepDays((await tariffs.get(tracker.tariff_id))?.track_storage_days ?? 365, ask.services.config.retention.days);
  const storageStart = keep === undefined ? -Infinity : ask.services.now() - keep * DAY;
  if (from >= storageStart) return { from, to, limitExceeded: false, empty: false };
  return { from: storageStart, to, limitExceeded: true, empty: to < storageStart };
}

/** Trips and single reports of the period, without LBS ones unless asked, without hidden trips when filtering. */
async function visibleTracks(ask: Ask, tracker: TrackerRow, p: Period, o: { includeLbs: boolean; filter: boolean }): Promise<{ shown: TrackRow[]; hidden: TrackRow[] }> {
  const store = ask.services.store.data.tracks;
  const shown: TrackRow[] = [];
  const hidden: TrackRow[] = [];
  if (p.empty) return { shown, hidden };
  for (const r of await store.inRange(tracker.source_id, p.from, p.to)) {
    if (!o.includeLbs && r.gsm_lbs) continue;
    // The stored extent when the telemetry core wrote one; else read from the trip's points (only for a trip not already too small).
    const facts = { lengthKm: r.length_km, points: r.points };
    const hide = o.filter && r.type === 'trip' && (tooSmall(facts) || circlesOnePoint(r.extent_m != null ? r.extent_m : extentDiagonalM(await store.extent(tracker.source_id, r.start_time, r.end_time))));
    (hide ? hidden : shown).push(r);
  }
  return { shown, hidden };
}

/** Stored addresses, else the user's geocoder (empty when it knows nothing or fails). */
async function withAddresses(ask: Ask, rows: TrackRow[]): Promise<AddressedTrack[]> {
  const opts = { type: ask.user.default_geocoder as GeocoderType, lang: ask.user.locale };
  const memo = new Map<string, Promise<string>>();
  const address = (stored: string | null, lat: number, lng: number): Promise<string> => {
    if (stored) return Promise.resolve(stored);
    const key = `${lat},${lng}`;
    let a = memo.get(key);
    if (!a) {
      a = ask.services.geocoder.reverse(lat, lng, opts).then((r) => r?.address ?? '', () => '');
      memo.set(key, a);
    }
    return a;
  };
  return Promise.all(
    rows.map(async (r) => ({
      ...r,
      start_address: await address(r.start_address, r.start_lat, r.start_lng),
      end_address: r.type === 'trip' ? await address(r.end_address, r.end_lat, r.end_lng) : (r.end_address ?? ''),
    })),
  );
}

const common = { tracker_id: id, from: z.string(), to: z.string() };

const list = defineCall({
  path: 'track/list',
  summary: 'Trips and single reports of a tracker in a period: regular, single_report, merged (split=false) and cluster descriptions, in time order.',
  params: z.object({
    ...common,
    filter: z.boolean().default(true),
    split: z.boolean().default(true),
    include_gsm_lbs: z.boolean().default(true),
    cluster_single_reports: z.boolean().default(false),
    count_events: z.boolean().default(false),
  }),
  async handler({ services, owner, user, params: q }) {
    const ask = { services, owner, user };
    const period = requestedPeriod(q.from, q.to, user.time_zone);
    const tracker = await readableTracker(ask, q.tracker_id);
    const p = await checkedPeriod(ask, tracker, period.from, period.to);
    const { shown } = await visibleTracks(ask, tracker, p, { includeLbs: q.include_gsm_lbs, filter: q.filter });
    const fuel = (await services.store.data.employees.byTracker(tracker.id))?.fuel_consumption;
    const clusterRadiusM = await clusterRadius(services, tracker);
    const list = describeTracks(await withAddresses(ask, shown), {
      tz: user.time_zone,
      split: q.split,
      clusterSingleReports: q.cluster_single_reports,
      countEvents: q.count_events,
      clusterRadiusM,
      fuelPer100Km: fuel || undefined,
    });
    return { limit_exceeded: p.limitExceeded, list };
  },
});

async function clusterRadius(services: Services, tracker: TrackerRow): Promise<number> {
  const json = await services.store.data.tracks.settingsJson(tracker.source_id);
  try {
    const r = json ? (JSON.parse(json) as { clusterRadiusMeters?: unknown }).clusterRadiusMeters : undefined;
    return typeof r === 'number' && r > 0 ? r : DEFAULT_SETTINGS.clusterRadiusMeters;
  } catch {
    return DEFAULT_SETTINGS.clusterRadiusMeters;
  }
}

/** Points of [from, to], read a day at a time with a turn of the event loop between days (long periods). */
async function readColumns(services: Services, sourceId: number, from: number, to: number, includeLbs: boolean): Promise<PointColumns> {
  const parts: PointColumns[] = [];
  for (let a = from; a <= to; a += DAY) {
    if (parts.length) await new Promise((r) => setImmediate(r));
    parts.push(await services.store.data.tracks.columns(sourceId, a, Math.min(to, a + DAY - 1), includeLbs));
  }
  return parts.length === 1 ? parts[0] : concatColumns(parts);
}

const spans = (rows: TrackRow[]): Interval[] => rows.map((r) => ({ start: r.start_time, end: r.end_time }));

/** The spec's track point. parking: the point belongs to no trip or single report. */
function pointView(r: PointRow, tz: string, parking: boolean): Record<string, unknown> {
  const v: Record<string, unknown> = {
    lat: r.lat,
    lng: r.lng,
    alt: Math.round(r.alt ?? 0),
    satellites: r.satellites ?? 0,
    get_time: formatDateTime(r.time, tz),
    address: '',
    heading: Math.round(r.course ?? 0) % 360,
    speed: Math.round(r.speed ?? 0),
  };
  if (r.precision !== null) v.precision = Math.round(r.precision);
  if (isLbs(r.flags)) v.gsm_lbs = true;
  if (parking) v.parking = true;
  return v;
}

const read = defineCall({
  path: 'track/read',
  summary: 'Points of a track (track_id) or of a period [from, to], simplified to point_limit (2..3000) when given.',
  params: z.object({
    tracker_id: id,
    from: z.string().optional(),
    to: z.string().optional(),
    track_id: id.optional(),
    include_gsm_lbs: z.boolean().default(true),
    point_limit: pointLimit,
    filter: z.boolean().default(false),
  }),
  async handler({ services, owner, user, params: q }) {
    const ask = { services, owner, user };
    const tz = user.time_zone;
    if (q.track_id === undefined) for (const k of ['from', 'to'] as const) if (q[k] === undefined) throw invalidParams([{ parameter: k, error: 'required without track_id' }]);
    const asked = q.from !== undefined && q.to !== undefined ? requestedPeriod(q.from, q.to, tz) : undefined;
    const tracker = await readableTracker(ask, q.tracker_id);
    let from: number;
    let to: number;
    if (q.track_id !== undefined) {
      const track = await services.store.data.tracks.get(tracker.source_id, q.track_id);
      if (!track) throw new DomainError(204, {}, `Entity not found: track ${q.track_id}`);
      from = Math.max(track.start_time, asked?.from ?? -Infinity);
      to = Math.min(track.end_time, asked?.to ?? Infinity);
    } else ({ from, to } = asked!);
    const p = await checkedPeriod(ask, tracker, from, to, q.track_id === undefined);
    if (p.empty || to < from) return { limit_exceeded: p.limitExceeded, list: [] };
    const cols = await readColumns(services, tracker.source_id, p.from, p.to, q.include_gsm_lbs);
    // Segments only matter for a period: a track's own points all belong to it.
    const { shown, hidden } = q.track_id === undefined ? await visibleTracks(ask, tracker, p, { includeLbs: true, filter: q.filter }) : { shown: [], hidden: [] };
    const kept = await simplifyIndicesOff(cols, outside(cols, spans(hidden)), q.point_limit, services.simplify);
    const times = Array.from(kept, (i) => cols.time[i]);
    const rows = await services.store.data.tracks.details(tracker.source_id, times);
    const inTrack = q.track_id === undefined ? membership(times, times.length, spans(shown)) : new Uint8Array(times.length).fill(1);
    return { limit_exceeded: p.limitExceeded, list: rows.map((r, k) => pointView(r, tz, !inTrack[k])) };
  },
});

const download = defineCall({
  path: 'track/download',
  summary: 'The track(s) of a period as KML or KMZ: one line, or (split=true) a folder per track with start/end placemarks and its line.',
  params: z.object({
    ...common,
    track_ids: z.array(id).max(10_000).optional(),
    include_gsm_lbs: z.boolean().default(true),
    point_limit: pointLimit,
    filter: z.boolean().default(false),
    format: z.enum(['kml', 'kmz']).default('kml'),
    split: z.boolean().default(false),
  }),
  async handler({ services, owner, user, params: q }) {
    const ask = { services, owner, user };
    const tz = user.time_zone;
    const period = requestedPeriod(q.from, q.to, tz);
    const tracker = await readableTracker(ask, q.tracker_id);
    const p = await checkedPeriod(ask, tracker, period.from, period.to);
    if (p.limitExceeded) return { list: [], limit_exceeded: true };
    const chosen = q.track_ids ? await chosenTracks(ask, tracker, q.track_ids) : undefined;
    const { shown, hidden } = chosen ? { shown: chosen, hidden: [] } : await visibleTracks(ask, tracker, p, { includeLbs: q.include_gsm_lbs, filter: q.filter });
    // The spec: include_gsm_lbs=false drops LBS points only when track_ids are not given.
    const cols = await readColumns(services, tracker.source_id, p.from, p.to, q.include_gsm_lbs || !!chosen);
    const name = `${tracker.label}: ${formatDateTime(p.from, tz)} - ${formatDateTime(p.to, tz)}`;
    const line = async (idx: Int32Array) => Array.from(await simplifyIndicesOff(cols, idx, q.point_limit, services.simplify), (i) => ({ lat: cols.lat[i], lng: cols.lng[i], alt: null }));
    let kml: string;
    if (q.split) kml = trackKml({ name, tracks: await folders(ask, shown, cols, line, tz) });
    else kml = trackKml({ name, line: await line(chosen ? insideAny(cols, chosen) : outside(cols, spans(hidden))) });
    const file = `track_${tracker.id}_${formatDateTime(p.from, tz).slice(0, 10)}`;
    if (q.format === 'kml') return new FileAnswer(kml, 'application/vnd.google-earth.kml+xml; charset=utf-8', `${file}.kml`);
    return new FileAnswer(await kmz(kml), 'application/vnd.google-earth.kmz', `${file}.kmz`);
  },
});

/** track_ids: each a trip or single report of the tracker (204 naming the first that is not), in time order. */
async function chosenTracks(ask: Ask, tracker: TrackerRow, ids: number[]): Promise<TrackRow[]> {
  const rows: TrackRow[] = [];
  for (const tid of new Set(ids)) {
    const r = await ask.services.store.data.tracks.get(tracker.source_id, tid);
    if (!r) throw new DomainError(204, {}, `Entity not found: track ${tid}`);
    rows.push(r);
  }
  return rows.sort((a, b) => a.start_time - b.start_time);
}

function insideAny(cols: PointColumns, rows: TrackRow[]): Int32Array {
  const inside = membership(cols.time, cols.n, spans(rows));
  const out: number[] = [];
  for (let i = 0; i < cols.n; i++) if (inside[i]) out.push(i);
  return Int32Array.from(out);
}

async function folders(ask: Ask, rows: TrackRow[], cols: PointColumns, line: (idx: Int32Array) => Promise<KmlTrack['line']>, tz: string): Promise<KmlTrack[]> {
  const addressed = await withAddresses(ask, rows);
  const out: KmlTrack[] = [];
  for (const [k, r] of addressed.entries()) out.push({
    name: `${r.type === 'trip' ? 'Track' : 'Single report'} ${k + 1}: ${formatDateTime(r.start_time, tz)} - ${formatDateTime(r.end_time, tz)}`,
    begin: r.start_time,
    end: r.end_time,
    start: { lat: r.start_lat, lng: r.start_lng, alt: null, time: r.start_time, description: placeText(r.start_time, r.start_address, tz) },
    finish: { lat: r.end_lat, lng: r.end_lng, alt: null, time: r.end_time, description: placeText(r.end_time, r.end_address, tz) },
    line: await line(within(cols, r.start_time, r.end_time)),
  });
  return out;
}

const placeText = (ms: number, address: string, tz: string) => (address ? `${formatDateTime(ms, tz)}, ${address}` : formatDateTime(ms, tz));

/** KMZ: a zip holding doc.kml, compressed off the event loop (fflate's async zip runs in a worker). */
function kmz(kml: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip({ 'doc.kml': new TextEncoder().encode(kml) }, { level: 6 }, (err, data) => (err ? reject(err) : resolve(Buffer.from(data.buffer, data.byteOffset, data.length))));
  });
}

export const trackCalls = [list, read, download];
