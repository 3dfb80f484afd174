/**
 * The last known location of a connection, for protocols whose devices send records without a
 * location of their own (command replies, status reports) that should still be placed on the map.
 */
import type { DeviceRecord } from './types.ts';

export interface LastFix {
  time?: number;
  lat: number;
  lng: number;
  altitude?: number;
  speed?: number;
  course?: number;
}

/** Keep `rec` as the connection's last known location when it is a valid fix. */
export function rememberFix(holder: { last?: LastFix }, rec: DeviceRecord): void {
  if (rec.lat !== undefined && rec.lng !== undefined && rec.valid !== false && (holder.last?.time === undefined || (rec.time ?? 0) >= holder.last.time)) {
    holder.last = { time: rec.time, lat: rec.lat, lng: rec.lng, altitude: rec.altitude, speed: rec.speed, course: rec.course };
  }
}

/** Give a record without a location the last known one, marked not valid (and its time when it has none). */
export function withLastFix(rec: DeviceRecord, holder: { last?: LastFix }): DeviceRecord {
  const last = holder.last;
  if (last) Object.assign(rec, { lat: last.lat, lng: last.lng, altitude: last.altitude, speed: last.speed, course: last.course, valid: false });
  rec.time ??= last?.time;
  return rec;
}

/**
 * A record with a location of its own is remembered; one without (`lat`/`lng` absent) takes the last
 * known fix, not valid. Either way a record without a time takes `now`.
 */
export function fixOrLast(holder: { last?: LastFix }, rec: DeviceRecord, now: number): DeviceRecord {
  if (rec.lat !== undefined && rec.lng !== undefined) rememberFix(holder, rec);
  else {
    delete rec.lat;
    delete rec.lng;
    withLastFix(rec, holder);
  }
  rec.time ??= now;
  return rec;
}

/**
 * Place a record of a connection: a valid fix becomes the last known location; a record without a
 * location gets that one (not valid), or 0/0 not valid before the connection had any.
 */
export function placeRecord(rec: DeviceRecord, holder: { last?: LastFix }): DeviceRecord {
  if (rec.lat !== undefined && rec.lng !== undefined) {
    rememberFix(holder, rec);
    return rec;
  }
  withLastFix(rec, holder);
  if (rec.lat === undefined) Object.assign(rec, { lat: 0, lng: 0, valid: false });
  return rec;
}
