/**
 * Decoded records cross to the writer thread packed: one Float64Array row of numbers per record
 * (transferred, not copied) plus the attributes as JSON text. NaN stands for "absent".
 */
import type { DeviceRecord } from '../../protocols/types.ts';

export const F = { source: 0, time: 1, lat: 2, lng: 3, alt: 4, speed: 5, course: 6, satellites: 7, hdop: 8, precision: 9, flags: 10, odometer: 11, hours: 12, fuelUsed: 13 } as const;
export const COLS = 14;

/** flags bits */
export const VALID = 1;
export const LBS = 2;
export const ARCHIVE = 4;
export const IGNITION_KNOWN = 8;
export const IGNITION_ON = 16;
export const ALARM = 32;

export interface PackedRows {
  values: Float64Array;
  attrs: Array<string | null>;
  /**
   * The newest value of every attribute over these rows, JSON `{name: [value, time]}`: the device
   * state is updated from it, so the writer parses one object per message rather than one per row.
   */
  latest: string | null;
}

const n = (x: number | undefined) => (typeof x === 'number' && Number.isFinite(x) ? x : NaN);

/** Pack the records of one device. Records without a usable time take `fallbackTime` (receipt). */
export function pack(sourceId: number, records: DeviceRecord[], fallbackTime: number): PackedRows {
  const values = new Float64Array(records.length * COLS);
  const attrs: Array<string | null> = new Array(records.length);
  const latest: Record<string, [unknown, number]> = {};
  let anyLatest = false;
  records.forEach((r, i) => {
    const o = i * COLS;
    values[o + F.source] = sourceId;
    values[o + F.time] = typeof r.time === 'number' && Number.isFinite(r.time) ? Math.round(r.time) : fallbackTime;
    values[o + F.lat] = n(r.lat);
    values[o + F.lng] = n(r.lng);
    values[o + F.alt] = n(r.altitude);
    values[o + F.speed] = n(r.speed);
    values[o + F.course] = n(r.course);
    values[o + F.satellites] = n(r.satellites);
    values[o + F.hdop] = n(r.hdop);
    values[o + F.precision] = n(r.precision);
    const a0 = r.attributes ?? {};
    const ign = a0.ignition;
    values[o + F.flags] =
      (r.valid !== false && typeof r.lat === 'number' ? VALID : 0) | (r.lbs ? LBS : 0) | (a0.archive ? ARCHIVE : 0) | (typeof ign === 'boolean' ? IGNITION_KNOWN | (ign ? IGNITION_ON : 0) : 0) | (a0.alarm !== undefined ? ALARM : 0);
    values[o + F.odometer] = typeof a0.odometer === 'number' ? a0.odometer : NaN;
    values[o + F.hours] = typeof a0.hours === 'number' ? a0.hours : NaN;
    values[o + F.fuelUsed] = typeof a0.fuelUsed === 'number' ? a0.fuelUsed : NaN;
    // No copy unless cells join the attributes (packing is on the gateway's hot path).
    const a: Record<string, unknown> = r.cells?.length ? { ...a0, cells: r.cells } : a0;
    let any = false;
    for (const _ in a) {
      any = true;
      break;
    }
    attrs[i] = any ? JSON.stringify(a) : null;
    const time = values[o + F.time];
    for (const k in a) {
      const prev = latest[k];
      if (!prev || prev[1] <= time) latest[k] = [a[k], time];
      anyLatest = true;
    }
  });
  return { values, attrs, latest: anyLatest ? JSON.stringify(latest) : null };
}
