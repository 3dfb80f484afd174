/**
 * The telemetry core's data shapes (issue 5; docs/telemetry.md), on the ground floor so the store,
 * the domain and the workers share them (issue 9). Plain data; imports nothing of the project.
 */

/** One stored record (a row of `fixes`) as the processors see it. NaN = not reported. */
export interface Point {
  time: number; // ms UTC
  lat: number; // NaN for a status record
  lng: number;
  alt: number; // m
  speed: number; // km/h
  course: number; // degrees
  satellites: number;
  precision: number; // m (accuracy radius)
  hdop: number;
  valid: boolean;
  /** Located by GSM LBS (cell towers): kept apart from GNSS tracks, never creates visits. */
  lbs: boolean;
  /** Normalised attributes the stages use; undefined when the device did not report them. */
  ignition?: boolean;
  /** Device odometer, metres. */
  odometer?: number;
  /** Device engine hours, ms. */
  hours?: number;
  /** Device fuel consumed counter, litres. */
  fuelUsed?: number;
  /** The record carries an event/alarm (counted by track/list count_events). */
  event?: boolean;
  /** The alarm's value in the attribute vocabulary (`sos`, `powerCut`, ...), when `event` and known. */
  alarm?: string;
}

/** Per-tracker processing settings (tracker/settings/read|update; docs/telemetry.md). */
export interface TrackerSettings {
  /** A stop at least this long below `parkingSpeedKmh` ends a trip. */
  parkingMinSeconds: number;
  parkingSpeedKmh: number;
  /** Ignition off ends a trip, when the tracker reports ignition. */
  ignitionEndsTrip: boolean;
  /** A point implying a faster move from the previous accepted one is a jump and dropped. */
  maxJumpSpeedKmh: number;
  /** Points further in the future than this are dropped. */
  futureToleranceSeconds: number;
  /** Gaps longer than this between points mean the tracker reports in interval mode (single reports). */
  intervalModeGapSeconds: number;
  /** Radius within which single reports form one cluster. */
  clusterRadiusMeters: number;
  /** Speeding episodes are recorded above this speed, km/h; null: none (docs/events.md). */
  speedLimitKmh: number | null;
}

export const DEFAULT_SETTINGS: Readonly<TrackerSettings> = Object.freeze({
  parkingMinSeconds: 300,
  parkingSpeedKmh: 3,
  ignitionEndsTrip: true,
  maxJumpSpeedKmh: 300,
  futureToleranceSeconds: 300,
  intervalModeGapSeconds: 900,
  clusterRadiusMeters: 300,
  speedLimitKmh: null,
});

/** Why the filter dropped a point (kept for diagnostics; dropped points are never in tracks). */
export type DropReason = 'invalid' | 'zero' | 'duplicate' | 'future' | 'jump' | 'out_of_order';

/** A finished (or, with `open`, the current) part of the tracker's history. */
export interface Segment {
  type: 'trip' | 'parking' | 'single_report';
  start: number; // ms UTC
  end: number;
  startLat: number;
  startLng: number;
  endLat: number;
  endLng: number;
  /** Accepted points in it. */
  points: number;
  lengthKm: number;
  maxSpeedKmh: number;
  avgSpeedKmh: number;
  /** All its points are GSM LBS. */
  gsmLbs: boolean;
  /** Median precision of its points, m (single reports). */
  precision?: number;
  /** Events/alarms during it. */
  events: number;
  /** Still going on (the last segment of a tracker). */
  open?: boolean;
  /** Diagonal of the bounding box of its points, m (how far apart they ever got; filterTrips). */
  extentM?: number;
}

/** The counters of a tracker at a moment (tracker/get_counters). */
export interface Counters {
  odometerKm: number;
  engineHours: number; // hours
  fuelConsumedL: number;
}

/**
 * An event of a tracker's history (docs/events.md). `decided`: the time of the fix whose processing
 * revealed it (events derived from fixes; a replayed window replaces those decided in it); null
 * for events recorded by the domain code (check-ins, statuses, tasks, forms) and the connection
 * watcher, which no reprocessing touches.
 */
export interface TrackerEvent {
  type: string;
  time: number; // ms UTC
  decided: number | null;
  lat: number | null;
  lng: number | null;
  /** Type-specific members (docs/events.md), JSON. */
  extra: Record<string, unknown>;
}

/** Kinds of geofences visits are tracked for. */
export type GeoKind = 'zone' | 'place' | 'task';

/** A stay inside a geofence: `exit` null while still inside. */
export interface Visit {
  kind: GeoKind;
  id: number;
  enter: number; // ms UTC, the first inside point's time
  exit: number | null; // the first outside point's time
}

/** Geofence table rows (migrations 005 and 006) as the store reads them for the geofence index. */
export interface ZoneGeoRow {
  id: number;
  user_id: number;
  type: string;
  radius: number | null;
  center_lat: number | null;
  center_lng: number | null;
}

export interface ZonePointGeoRow {
  zone_id: number;
  ordinal: number;
  lat: number;
  lng: number;
}

export interface PlaceGeoRow {
  id: number;
  user_id: number;
  lat: number;
  lng: number;
  radius: number;
}

export interface TaskGeoRow {
  id: number;
  user_id: number;
  type: string;
  tracker_id: number | null;
  lat: number | null;
  lng: number | null;
  radius: number | null;
}

/** The four row sets together. */
export interface GeoRows {
  zones: ZoneGeoRow[];
  zonePoints: ZonePointGeoRow[];
  places: PlaceGeoRow[];
  tasks: TaskGeoRow[];
}
