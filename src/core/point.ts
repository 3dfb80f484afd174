/**
 * The one point model (issue 9): the flag bits of a fix, the columnar point form used from the
 * writer to the track API, the row layout the gateway packs records into, and the rule of which
 * points a track shows. Pure; imports nothing of the project.
 */

/**
 * Flag bits of a fix. This is the layout of the `fixes.flags` column on disk, and the only one:
 * the writer's rows, the telemetry columns and the track columns carry the same bits.
 */
export const FLAG = {
  /** The device marked the location valid (and sent one). */
  valid: 1,
  /** Located by GSM LBS (cell towers), not GNSS. */
  lbs: 2,
  /** Sent from the device's buffer (archive record). */
  archive: 4,
  /** The device reported its ignition; `ignitionOn` then says which way. */
  ignitionKnown: 8,
  ignitionOn: 16,
  /** The record carries an event/alarm. */
  alarm: 32,
} as const;

export const isValid = (flags: number): boolean => (flags & FLAG.valid) !== 0;
export const isLbs = (flags: number): boolean => (flags & FLAG.lbs) !== 0;
export const isArchive = (flags: number): boolean => (flags & FLAG.archive) !== 0;
export const hasAlarm = (flags: number): boolean => (flags & FLAG.alarm) !== 0;
/** The reported ignition; undefined when the device did not report it. */
export const ignitionOf = (flags: number): boolean | undefined => ((flags & FLAG.ignitionKnown) === 0 ? undefined : (flags & FLAG.ignitionOn) !== 0);
/** A valid GNSS location (GSM LBS excluded): what moves a device's last known position. */
export const isGnssFix = (flags: number): boolean => (flags & (FLAG.valid | FLAG.lbs)) === FLAG.valid;

/** What the flags say, as named facts (inverse of the helpers above). */
export interface FlagFacts {
  valid: boolean;
  lbs?: boolean;
  archive?: boolean;
  ignition?: boolean;
  alarm?: boolean;
}

export function flagsOf(f: FlagFacts): number {
  return (
    (f.valid ? FLAG.valid : 0) |
    (f.lbs ? FLAG.lbs : 0) |
    (f.archive ? FLAG.archive : 0) |
    (f.ignition === undefined ? 0 : FLAG.ignitionKnown | (f.ignition ? FLAG.ignitionOn : 0)) |
    (f.alarm ? FLAG.alarm : 0)
  );
}

/**
 * The visibility rule, the only copy: a fix is a track point (track/read, track/list extents,
 * the packed track points) when it is valid, has both coordinates and is not at 0,0 (a device's
 * "no fix"). GSM LBS points are points too; callers drop them when not asked for.
 */
export function isTrackPoint(flags: number, lat: number | null, lng: number | null): boolean {
  return (flags & FLAG.valid) !== 0 && lat !== null && lng !== null && Number.isFinite(lat) && Number.isFinite(lng) && !(lat === 0 && lng === 0);
}

/**
 * Points in columns: the first `n` entries of each array (arrays may be longer). Flags in the
 * FLAG layout. The track calls and the packed track points use these four columns.
 */
export interface PointColumns {
  n: number;
  time: Float64Array;
  lat: Float64Array;
  lng: Float64Array;
  flags: Uint8Array;
}

/** The measured values beside time and location; NaN where not reported. */
export const MEASURE_COLUMNS = ['alt', 'speed', 'course', 'satellites', 'precision', 'hdop', 'odometer', 'hours', 'fuelUsed'] as const;
export type MeasureColumn = (typeof MEASURE_COLUMNS)[number];

/** The same columns with every measured value: what the telemetry workers process. */
export type FullPointColumns = PointColumns & Record<MeasureColumn, Float64Array>;

export function emptyColumns(capacity: number): PointColumns {
  return { n: 0, time: new Float64Array(capacity), lat: new Float64Array(capacity), lng: new Float64Array(capacity), flags: new Uint8Array(capacity) };
}

export function emptyFullColumns(capacity: number): FullPointColumns {
  const c = emptyColumns(capacity) as FullPointColumns;
  for (const k of MEASURE_COLUMNS) c[k] = new Float64Array(capacity);
  return c;
}

/** Appends points [a, b) of `src` to `out` (which must have room); time, location and flags only. */
export function appendColumns(out: PointColumns, src: PointColumns, a = 0, b = src.n): void {
  out.time.set(src.time.subarray(a, b), out.n);
  out.lat.set(src.lat.subarray(a, b), out.n);
  out.lng.set(src.lng.subarray(a, b), out.n);
  out.flags.set(src.flags.subarray(a, b), out.n);
  out.n += b - a;
}

/** Columns one after the other (each in time order, each later than the one before). */
export function concatColumns(parts: PointColumns[]): PointColumns {
  const out = emptyColumns(parts.reduce((s, p) => s + p.n, 0));
  for (const p of parts) appendColumns(out, p);
  return out;
}

/** The track points (`isTrackPoint`) among the first `c.n` of `c`, in order. */
export function trackPointsOf(c: PointColumns): PointColumns {
  const out = emptyColumns(c.n);
  for (let i = 0; i < c.n; i++) {
    if (!isTrackPoint(c.flags[i], c.lat[i], c.lng[i])) continue;
    out.time[out.n] = c.time[i];
    out.lat[out.n] = c.lat[i];
    out.lng[out.n] = c.lng[i];
    out.flags[out.n++] = c.flags[i];
  }
  return out;
}

/**
 * Decoded records cross from the gateway to its writer thread packed: one Float64Array row of
 * numbers per record (transferred, not copied; row-major because a message holds a few records and
 * is inserted row by row) plus the attributes as JSON text. NaN stands for "absent".
 */
export const ROW = { source: 0, time: 1, lat: 2, lng: 3, alt: 4, speed: 5, course: 6, satellites: 7, hdop: 8, precision: 9, flags: 10, odometer: 11, hours: 12, fuelUsed: 13 } as const;
export const ROW_WIDTH = 14;

export interface PackedRows {
  /** `ROW_WIDTH` numbers per record, laid out as `ROW`; flags in the FLAG layout. */
  values: Float64Array;
  attrs: Array<string | null>;
  /**
   * The newest value of every attribute over these rows, JSON `{name: [value, time]}`: the device
   * state is updated from it, so the writer parses one object per message rather than one per row.
   */
  latest: string | null;
}

/** An attribute value as stored in the device state. */
export type AttrValue = number | string | boolean;
/** Latest value of each attribute and the time (ms UTC) it was reported. */
export type LatestAttrs = Record<string, [AttrValue, number]>;
