/**
 * Reads of `device_state` (migration 008): the latest state of each device. The gateway's writer
 * keeps the rows current in the same transaction as the fixes; the API only reads them here.
 */
import type { LatestAttrs } from '../core/point.ts';
import type { DB } from './db.ts';

export type { LatestAttrs } from '../core/point.ts';

export interface DeviceState {
  sourceId: number;
  /** The last valid GNSS fix (GSM LBS excluded); `fixTime` null when there never was one. */
  fixTime: number | null;
  lat: number | null;
  lng: number | null;
  alt: number | null;
  speed: number | null;
  course: number | null;
  satellites: number | null;
  precision: number | null;
  /** Time of the last record of any kind. */
  lastTime: number | null;
  attrs: LatestAttrs;
}

/** A `device_state` row as stored (the gateway's writer keeps the same shape in memory, src/store/fixes.ts). */
export interface DeviceStateRow {
  source_id: number;
  fix_time: number | null;
  lat: number | null;
  lng: number | null;
  alt: number | null;
  speed: number | null;
  course: number | null;
  satellites: number | null;
  precision: number | null;
  last_time: number | null;
  attrs: string;
}

export class DeviceStateStore {
  private getStmt;

  constructor(db: DB) {
    this.getStmt = db.prepare<[number], DeviceStateRow>(
      'SELECT source_id, fix_time, lat, lng, alt, speed, course, satellites, precision, last_time, attrs FROM device_state WHERE source_id = ?',
    );
  }

  /** The device's latest state, or undefined when it never sent anything. */
  get(sourceId: number): DeviceState | undefined {
    const r = this.getStmt.get(sourceId);
    return r && deviceStateOf(r);
  }
}

/** A stored row as the API reads it (every engine's). */
export function deviceStateOf(r: DeviceStateRow): DeviceState {
  return {
    sourceId: r.source_id,
    fixTime: r.fix_time,
    lat: r.lat,
    lng: r.lng,
    alt: r.alt,
    speed: r.speed,
    course: r.course,
    satellites: r.satellites,
    precision: r.precision,
    lastTime: r.last_time,
    attrs: parseAttrs(r.attrs),
  };
}

/** The attrs column, keeping only well-formed `[value, time]` pairs: a bad entry must not fail a read. */
function parseAttrs(json: string): LatestAttrs {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return {};
  }
  const out: LatestAttrs = {};
  if (!raw || typeof raw !== 'object') return out;
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (!Array.isArray(v) || v.length < 2 || typeof v[1] !== 'number') continue;
    const value = v[0];
    if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') out[k] = [value, v[1]];
  }
  return out;
}
