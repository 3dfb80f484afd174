/**
 * Packs decoded records into the writer's rows (the layout `ROW` of src/core/point.ts): the
 * gateway's hot path, one Float64Array per message, no object per record.
 */
import type { DeviceRecord } from '../../protocols/types.ts';
import { flagsOf, ROW, ROW_WIDTH, type PackedRows } from '../core/point.ts';

export type { PackedRows } from '../core/point.ts';

const n = (x: number | undefined) => (typeof x === 'number' && Number.isFinite(x) ? x : NaN);

/** Pack the records of one device. Records without a usable time take `fallbackTime` (receipt). */
export function pack(sourceId: number, records: DeviceRecord[], fallbackTime: number): PackedRows {
  const values = new Float64Array(records.length * ROW_WIDTH);
  const attrs: Array<string | null> = new Array(records.length);
  const latest: Record<string, [unknown, number]> = {};
  let anyLatest = false;
  records.forEach((r, i) => {
    const o = i * ROW_WIDTH;
    values[o + ROW.source] = sourceId;
    values[o + ROW.time] = typeof r.time === 'number' && Number.isFinite(r.time) ? Math.round(r.time) : fallbackTime;
    values[o + ROW.lat] = n(r.lat);
    values[o + ROW.lng] = n(r.lng);
    values[o + ROW.alt] = n(r.altitude);
    values[o + ROW.speed] = n(r.speed);
    values[o + ROW.course] = n(r.course);
    values[o + ROW.satellites] = n(r.satellites);
    values[o + ROW.hdop] = n(r.hdop);
    values[o + ROW.precision] = n(r.precision);
    const a0 = r.attributes ?? {};
    const ign = a0.ignition;
    values[o + ROW.flags] = flagsOf({
      valid: r.valid !== false && typeof r.lat === 'number',
      lbs: r.lbs,
      archive: !!a0.archive,
      ignition: typeof ign === 'boolean' ? ign : undefined,
      alarm: a0.alarm !== undefined,
    });
    values[o + ROW.odometer] = typeof a0.odometer === 'number' ? a0.odometer : NaN;
    values[o + ROW.hours] = typeof a0.hours === 'number' ? a0.hours : NaN;
    values[o + ROW.fuelUsed] = typeof a0.fuelUsed === 'number' ? a0.fuelUsed : NaN;
    // No copy unless cells join the attributes (packing is on the gateway's hot path).
    const a: Record<string, unknown> = r.cells?.length ? { ...a0, cells: r.cells } : a0;
    let any = false;
    for (const _ in a) {
      any = true;
      break;
    }
    attrs[i] = any ? JSON.stringify(a) : null;
    const time = values[o + ROW.time];
    for (const k in a) {
      const prev = latest[k];
      if (!prev || prev[1] <= time) latest[k] = [a[k], time];
      anyLatest = true;
    }
  });
  return { values, attrs, latest: anyLatest ? JSON.stringify(latest) : null };
}
