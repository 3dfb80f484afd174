/**
 * Delivery tracking (issue 11; spec: Delivery info, Delivery calls; docs/delivery.md): the one
 * DELIVERY session of a master user, and what a customer may see of the tasks carrying an
 * external id — the task, its tracker, the tracker's employee and vehicle, and an estimated time
 * of arrival from the tracker's last fix.
 * Still on the synchronous store (issue 24): its only callers are the calls of src/api/delivery.ts,
 * which move to the asynchronous contract with src/api.
 */
import type { Store } from '../store/index.ts';
import type { DeviceState } from '../store/device-state.ts';
import type { EmployeeRow } from '../store/employees.ts';
import type { TaskRow } from '../store/tasks.ts';
import type { TrackerRow } from '../store/trackers.ts';
import { distanceM } from '../core/geo.ts';
import { DomainError } from '../core/errors.ts';

export interface DeliveryDeps {
  store: Store;
  now: number;
  /** Sessions unused this long are over (config.auth.sessionTtlDays): the delivery one too. */
  sessionTtlMs: number;
}

/** The master's live delivery session, if any. */
function current({ store, now, sessionTtlMs }: DeliveryDeps, userId: number): string | undefined {
  const s = store.sessions.ofType(userId, 'delivery');
  return s && s.last_used >= now - sessionTtlMs ? s.hash : undefined;
}

/** A fix older than this says nothing about where the tracker is now: no estimate. */
export const ETA_MAX_FIX_AGE_MS = 15 * 60_000;
/** Speeds below this (a stop at a light, a parked van) would give absurd estimates: 10 km/h. */
export const ETA_MIN_SPEED_MPS = 10 / 3.6;

/** The master's delivery session hash: the existing one, or a new one when it has none. */
export function deliverySession(deps: DeliveryDeps, userId: number): string {
  const hash = current(deps, userId);
  if (hash) return hash;
  // An expired one goes: one delivery session per master.
  deps.store.sessions.deleteOfType(userId, 'delivery');
  return deps.store.sessions.create(userId, 'delivery', deps.now);
}

/** The master's delivery session hash, or 201 when it has none. */
export function readDeliverySession(deps: DeliveryDeps, userId: number): string {
  const hash = current(deps, userId);
  if (!hash) throw new DomainError(201, {}, 'Not found in the database: no delivery session; create one with user/session/delivery/create');
  return hash;
}

/** Delete the master's delivery session; 201 when it has none. */
export function revokeDeliverySession(deps: DeliveryDeps, userId: number): void {
  const { store } = deps;
  if (!current(deps, userId)) throw new DomainError(201, {}, 'Not found in the database: no delivery session');
  store.sessions.deleteOfType(userId, 'delivery');
}

export interface Delivery {
  task: TaskRow;
  tracker: TrackerRow | null;
  employee: EmployeeRow | null;
  vehicleLabel: string | null;
  /** Seconds, or null when unknown (docs/delivery.md). */
  estimatedTime: number | null;
}

/**
 * Seconds from the tracker's last fix to the task's zone: distance to the zone's edge (0 inside)
 * over the fix's speed, at least ETA_MIN_SPEED_MPS. Null without a fix or with one older than
 * ETA_MAX_FIX_AGE_MS, or when the task has no location.
 */
export function estimatedTime(task: TaskRow, state: DeviceState | undefined, now: number): number | null {
  if (!state || state.fixTime === null || state.lat === null || state.lng === null) return null;
  if (now - state.fixTime > ETA_MAX_FIX_AGE_MS) return null;
  if (task.lat === null || task.lng === null) return null;
  const distance = Math.max(0, distanceM(state.lat, state.lng, task.lat, task.lng) - (task.radius ?? 0));
  const speed = Math.max((state.speed ?? 0) / 3.6, ETA_MIN_SPEED_MPS);
  return Math.round(distance / speed);
}

/** Every task and checkpoint of the owner with this external id the delivery calls consider; 201 when none. */
export function findDeliveries(deps: DeliveryDeps, ownerId: number, externalId: string): Delivery[] {
  const { store, now } = deps;
  const rows = store.tasks.findForDelivery(ownerId, externalId, now);
  if (!rows.length) throw new DomainError(201, {}, `Not found in the database: no current delivery with external id ${externalId}`);
  return rows.map((task) => {
    const tracker = task.tracker_id === null ? null : (store.trackers.get(ownerId, task.tracker_id) ?? null);
    if (!tracker) return { task, tracker: null, employee: null, vehicleLabel: null, estimatedTime: null };
    const employee = store.employees.byTracker(tracker.id);
    return {
      task,
      tracker,
      employee: employee && employee.user_id === ownerId ? employee : null,
      vehicleLabel: store.trackers.vehicleLabel(ownerId, tracker.id),
      estimatedTime: estimatedTime(task, store.deviceState.get(tracker.source_id), now),
    };
  });
}

/** delivery/read: the first task; a checkpoint only when no plain task matches (the store orders tasks first). */
export function findDelivery(deps: DeliveryDeps, ownerId: number, externalId: string): Delivery {
  return findDeliveries(deps, ownerId, externalId)[0];
}
