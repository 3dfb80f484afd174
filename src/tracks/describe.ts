/**
 * track/list descriptions (spec: Track descriptions): regular, single_report, merged (split=false)
 * and cluster (cluster_single_reports=true), in time order. Pure: rows come with their addresses
 * already resolved, times are formatted in the user's zone.
 */
import { formatDateTime } from '../core/time.ts';
import type { TrackRow } from '../store/tracks.ts';
import { median } from '../telemetry/stages/median.ts';
import { distanceM } from '../core/geo.ts';

/** A row whose addresses are known (stored, or from the geocoder). */
export type AddressedTrack = TrackRow & { start_address: string; end_address: string };

export interface DescribeOptions {
  tz: string;
  split: boolean;
  clusterSingleReports: boolean;
  countEvents: boolean;
  /** Radius within which consecutive single reports form one cluster, m. */
  clusterRadiusM: number;
  /** Litres per 100 km of the tracker's employee; no norm_fuel_consumed when absent or 0. */
  fuelPer100Km?: number;
}

type Description = Record<string, unknown>;

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

/** The list of descriptions for trips and single reports sorted by start time. */
export function describeTracks(rows: AddressedTrack[], o: DescribeOptions): Description[] {
  const trips = rows.filter((r) => r.type === 'trip');
  const out: Array<{ at: number; d: Description }> = [];
  if (o.split) for (const t of trips) out.push({ at: t.start_time, d: regular(t, o) });
  else if (trips.length) out.push({ at: trips[0].start_time, d: merged(trips, o) });
  for (const run of singleReportRuns(rows, o)) {
    const d = run.length > 1 ? cluster(run, o) : singleReport(run[0], o);
    out.push({ at: run[0].start_time, d });
  }
  return out.sort((a, b) => a.at - b.at).map((x) => x.d);
}

/** Single reports grouped: runs of consecutive ones (no trip between) within the radius of the run's first, when clustering; else one each. */
export function singleReportRuns(rows: AddressedTrack[], o: Pick<DescribeOptions, 'clusterSingleReports' | 'clusterRadiusM'>): AddressedTrack[][] {
  const runs: AddressedTrack[][] = [];
  let run: AddressedTrack[] | undefined;
  for (const r of rows) {
    if (r.type !== 'single_report') {
      run = undefined;
      continue;
    }
    const first = run?.[0];
    if (o.clusterSingleReports && first && distanceM(first.start_lat, first.start_lng, r.start_lat, r.start_lng) <= o.clusterRadiusM) run!.push(r);
    else runs.push((run = [r]));
  }
  return runs;
}

function regular(t: AddressedTrack, o: DescribeOptions): Description {
  return tripFields(
    { start: t, end: t, maxSpeed: t.max_speed, avgSpeed: t.avg_speed, lengthKm: t.length_km, points: t.points, events: t.events, gsmLbs: !!t.gsm_lbs },
    o,
    { id: t.id },
  );
}

/** All trips of the period as one: speeds weighted by duration, sums of length, points and events. */
function merged(trips: AddressedTrack[], o: DescribeOptions): Description {
  const duration = trips.reduce((s, t) => s + (t.end_time - t.start_time), 0);
  const avgSpeed = duration > 0 ? trips.reduce((s, t) => s + t.avg_speed * (t.end_time - t.start_time), 0) / duration : trips.reduce((s, t) => s + t.avg_speed, 0) / trips.length;
  return tripFields(
    {
      start: trips[0],
      end: trips[trips.length - 1],
      maxSpeed: Math.max(...trips.map((t) => t.max_speed)),
      avgSpeed,
      lengthKm: trips.reduce((s, t) => s + t.length_km, 0),
      points: trips.reduce((s, t) => s + t.points, 0),
      events: trips.reduce((s, t) => s + t.events, 0),
      gsmLbs: trips.every((t) => t.gsm_lbs),
    },
    o,
    {},
  );
}

interface TripFacts {
  start: AddressedTrack;
  end: AddressedTrack;
  maxSpeed: number;
  avgSpeed: number;
  lengthKm: number;
  points: number;
  events: number;
  gsmLbs: boolean;
}

/** The regular/merged fields in the spec's order. */
function tripFields(f: TripFacts, o: DescribeOptions, head: Description): Description {
  const d: Description = {
    ...head,
    start_date: formatDateTime(f.start.start_time, o.tz),
    start_address: f.start.start_address,
    end_date: formatDateTime(f.end.end_time, o.tz),
    end_address: f.end.end_address,
    max_speed: Math.round(f.maxSpeed),
    avg_speed: Math.round(f.avgSpeed),
    length: round(f.lengthKm, 3),
    points: f.points,
  };
  if (o.countEvents) d.event_count = f.events;
  if (o.fuelPer100Km) d.norm_fuel_consumed = round((f.lengthKm * o.fuelPer100Km) / 100, 2);
  d.type = head.id === undefined ? 'merged' : 'regular';
  if (f.gsmLbs) d.gsm_lbs = true;
  return d;
}

function singleReport(t: AddressedTrack, o: DescribeOptions): Description {
  const d: Description = { id: t.id, type: 'single_report', start_date: formatDateTime(t.start_time, o.tz), start_address: t.start_address, avg_speed: Math.round(t.avg_speed) };
  if (t.gsm_lbs) d.gsm_lbs = true;
  if (t.precision !== null) d.precision = Math.round(t.precision);
  return d;
}

/** Consecutive nearby single reports: precision is the median of theirs (as the telemetry core's clusters); gsm_lbs when all are. */
function cluster(run: AddressedTrack[], o: DescribeOptions): Description {
  const precision = median(run.map((r) => r.precision ?? NaN));
  const d: Description = {
    start_date: formatDateTime(run[0].start_time, o.tz),
    start_address: run[0].start_address,
    end_date: formatDateTime(run[run.length - 1].end_time, o.tz),
  };
  if (precision !== undefined) d.precision = Math.round(precision);
  d.points = run.map((r) => ({ lat: r.start_lat, lng: r.start_lng }));
  d.type = 'cluster';
  if (run.every((r) => r.gsm_lbs)) d.gsm_lbs = true;
  return d;
}
