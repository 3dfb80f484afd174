/**
 * task/batch_convert (spec: Tasks; docs/tasks-api.md): tab-delimited rows -> task objects ready
 * for task/create, each with its own `errors`. Nothing is saved. Parsing is src/imports/batch.ts.
 */
import { invalidParams } from '../core/errors.ts';
import type { Geocoder, GeocoderType } from '../geocoder/types.ts';
import { coordinateCells, intCell, parseBatch, textCell, type BatchRow, type RowError } from '../imports/batch.ts';
import { addressFor, locateRow } from '../imports/geocode.ts';
import type { UserRow } from '../store/users.ts';
import { formatDateTime, parseDateTime } from '../core/time.ts';
import { MAX_EXTERNAL_ID, MAX_MINUTES, MAX_RADIUS, type TaskDeps } from './input.ts';

export const TASK_BATCH_FIELDS = ['label', 'from', 'to', 'address', 'lat', 'lng', 'description', 'radius', 'external_id', 'max_delay', 'min_stay_duration', 'duration'] as const;
export const DEFAULT_TASK_BATCH_FIELDS = ['label', 'from', 'to', 'address', 'lat', 'lng', 'description'] as const;
export const LOCATION_CHECK_MODES = ['no_check', 'entity_location', 'parent_location'] as const;

export interface BatchParams {
  batch: string;
  fields: readonly string[];
  geocoder?: GeocoderType;
  default_radius: number;
  default_max_delay: number;
  default_duration: number;
  default_min_stay_duration: number;
  location_check_mode: (typeof LOCATION_CHECK_MODES)[number];
  employee_ids?: number[] | null;
}

export async function convertBatch(deps: TaskDeps, owner: UserRow, tz: string, p: BatchParams): Promise<{ list: Array<Record<string, unknown>>; limit_exceeded: boolean }> {
  const trackers = await assignees(deps, owner, p.employee_ids ?? []);
  const { rows, limitExceeded } = parseBatch(p.batch, p.fields);
  const { geocoder } = deps;
  const list: Array<Record<string, unknown>> = [];
  let next = 0;
  for (const row of rows) {
    const task = await convertRow(row, p, tz, geocoder);
    // Automatic assignment: round-robin over the given employees' usable trackers, valid rows only.
    if (trackers.length && !task.errors) task.tracker_id = trackers[next++ % trackers.length];
    list.push(task);
  }
  return { list, limit_exceeded: limitExceeded };
}

/** Trackers of the given employees that can take tasks, in the given order (7 naming employee_ids for unknown ids). */
async function assignees(deps: TaskDeps, owner: UserRow, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const data = deps.store.data;
  const { found, missing } = await data.tasks.employeeTrackers(owner.id, ids);
  if (missing.length) throw invalidParams([{ parameter: 'employee_ids', error: `no such employees: ${missing.join(', ')}` }]);
  const usable: number[] = [];
  for (const e of found) {
    if (e.tracker_id === null) continue;
    const tr = await data.trackers.get(owner.id, e.tracker_id);
    if (tr && !tr.blocked && (await data.tariffs.get(tr.tariff_id))?.has_tasks) usable.push(e.tracker_id);
  }
  return usable;
}

async function convertRow(row: BatchRow, p: BatchParams, tz: string, geocoder: Geocoder): Promise<Record<string, unknown>> {
  const c = row.cells;
  const errors: RowError[] = [];
  const label = textCell(c, 'label', 1, 200, errors);
  const description = textCell(c, 'description', 0, 1024, errors);
  const externalId = textCell(c, 'external_id', 0, MAX_EXTERNAL_ID, errors);
  const radius = intCell(c, 'radius', 1, MAX_RADIUS, p.default_radius, errors);
  const maxDelay = intCell(c, 'max_delay', 0, MAX_MINUTES, p.default_max_delay, errors);
  const minStay = intCell(c, 'min_stay_duration', 0, MAX_MINUTES, p.default_min_stay_duration, errors);
  const duration = intCell(c, 'duration', 1, MAX_MINUTES, p.default_duration, errors);
  const from = dateCell(c.from ?? '', tz, 'from', true, errors);
  let to = dateCell(c.to ?? '', tz, 'to', false, errors);
  if (to === undefined && from !== undefined && !c.to) to = from + duration * 60_000;
  if (from !== undefined && to !== undefined && to <= from) errors.push({ parameter: 'to', error: 'must be after from' });
  let address = c.address ?? '';
  const coords = coordinateCells(c, errors);
  let point: { lat: number; lng: number } | undefined;
  // no_check: a row without any location is accepted (location null, to be completed by the client).
  if (p.location_check_mode !== 'no_check' || coords || address) point = await locateRow(geocoder, coords, address, errors, p.geocoder);
  if (point) address = await addressFor(geocoder, point.lat, point.lng, address, p.geocoder);
  return {
    type: 'task',
    label,
    description,
    location: point ? { lat: point.lat, lng: point.lng, address, radius } : null,
    from: from === undefined ? null : formatDateTime(from, tz),
    to: to === undefined ? null : formatDateTime(to, tz),
    external_id: externalId || null,
    max_delay: maxDelay,
    min_stay_duration: minStay,
    tracker_id: null,
    ...(errors.length ? { errors } : {}),
  };
}

/** A date/time cell in the user's zone: yyyy-MM-dd HH:mm:ss, or without seconds. */
function dateCell(raw: string, tz: string, name: string, required: boolean, errors: RowError[]): number | undefined {
  if (raw === '') {
    if (required) errors.push({ parameter: name, error: 'required' });
    return undefined;
  }
  const ms = parseDateTime(/^\d{4}-\d\d-\d\d \d\d:\d\d$/.test(raw) ? `${raw}:00` : raw, tz);
  if (ms === undefined) errors.push({ parameter: name, error: 'expected yyyy-MM-dd HH:mm:ss' });
  return ms;
}
