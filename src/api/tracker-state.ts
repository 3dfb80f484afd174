/**
 * Tracker readings (issue 3; spec: Trackers — get_last_gps_point, get_diagnostics, get_inputs,
 * get_fuel, get_counters): the latest state the gateway keeps in device_state, mapped to the
 * spec's names and units by src/telemetry/sensors.ts.
 * Errors: an unknown, deleted or other user's tracker is 204 (201 for get_last_gps_point, whose
 * spec row names 201 like tracker/read); a blocked tracker is 208. get_last_gps_point answers 204
 * when the tracker exists but never sent a valid GNSS fix: `value` is always a track point.
 */
import { z } from 'zod';
import type { DeviceState } from '../store/device-state.ts';
import type { TrackerRow } from '../store/trackers.ts';
import type { UserRow } from '../store/users.ts';
import { readCounters, readInputs, readSensors, readStates, type SensorReading } from '../telemetry/sensors.ts';
import { formatDateTime } from '../core/time.ts';
import { DomainError } from '../core/errors.ts';
import { defineCall, type Services } from './kernel.ts';
import { id } from './schemas.ts';
import { ownTracker } from './tracker.ts';
import { sourceState } from './source-state.ts';

const params = z.object({ tracker_id: id });

/** The owner's live, unblocked tracker and its device's latest state (empty when it never reported). */
async function readable(services: Services, owner: UserRow, trackerId: number, notFound: 201 | 204): Promise<{ tracker: TrackerRow; state: DeviceState | undefined }> {
  const tracker = await ownTracker(services, owner, trackerId, notFound);
  if (tracker.blocked) throw new DomainError(208, {}, `Device blocked: tracker ${trackerId}`);
  return { tracker, state: await services.store.data.deviceState.get(tracker.source_id) };
}

const time = (ms: number | null, tz: string) => (ms === null ? null : formatDateTime(ms, tz));
const newest = (times: number[]) => (times.length ? Math.max(...times) : null);

/** The spec's sensor value object. No per-user unit conversion exists yet, so converted_* are null. */
function sensorView(s: SensorReading): Record<string, unknown> {
  return { label: s.label, name: s.name, type: s.type, value: s.value, units_type: s.unitsType, units: s.units, converted_units_type: null, converted_value: null };
}

const lastGpsPoint = defineCall({
  path: 'tracker/get_last_gps_point',
  summary: 'The last valid GNSS point of the tracker (points located by GSM LBS excluded); 204 when it never sent one.',
  params,
  async handler({ services, owner, user, params: p }) {
    const { state: s } = await readable(services, owner, p.tracker_id, 201);
    if (!s || s.fixTime === null || s.lat === null || s.lng === null) throw new DomainError(204, {}, `Entity not found: tracker ${p.tracker_id} has no GPS point yet`);
    const value: Record<string, unknown> = {
      lat: s.lat,
      lng: s.lng,
      alt: Math.round(s.alt ?? 0),
      satellites: s.satellites ?? 0,
      get_time: formatDateTime(s.fixTime, user.time_zone),
      address: '',
      heading: Math.round(s.course ?? 0) % 360,
      speed: Math.round(s.speed ?? 0),
    };
    if (s.precision !== null) value.precision = Math.round(s.precision);
    return { value };
  },
});

const diagnostics = defineCall({
  path: 'tracker/get_diagnostics',
  summary: 'Sensor inputs and states the tracker reported last (states null when it reported none).',
  params,
  async handler({ services, owner, user, params: p }) {
    const { tracker, state } = await readable(services, owner, p.tracker_id, 204);
    const latest = state?.attrs ?? {};
    const sensors = readSensors(latest, tracker.protocol);
    const states = readStates(latest);
    const tz = user.time_zone;
    return {
      user_time: formatDateTime(services.now(), tz),
      inputs: sensors.map(sensorView),
      states: states.length ? Object.fromEntries(states.map((s) => [s.name, s.value])) : null,
      update_time: time(newest([...sensors, ...states].map((x) => x.time)), tz),
    };
  },
});

const inputs = defineCall({
  path: 'tracker/get_inputs',
  summary: 'Digital inputs in order and their states with semantic types (ignition, door, car_alarm, custom).',
  params,
  async handler({ services, owner, user, params: p }) {
    const { tracker, state } = await readable(services, owner, p.tracker_id, 204);
    const r = readInputs(state?.attrs ?? {}, tracker.protocol);
    const tz = user.time_zone;
    return { user_time: formatDateTime(services.now(), tz), inputs: r.inputs, states: r.states, update_time: time(r.time, tz) };
  },
});

const fuel = defineCall({
  path: 'tracker/get_fuel',
  summary: 'Fuel-related sensor inputs (levels, consumption), same shape as in get_diagnostics.',
  params,
  async handler({ services, owner, user, params: p }) {
    const { tracker, state } = await readable(services, owner, p.tracker_id, 204);
    const sensors = readSensors(state?.attrs ?? {}, tracker.protocol).filter((s) => s.fuel);
    const tz = user.time_zone;
    return { user_time: formatDateTime(services.now(), tz), inputs: sensors.map(sensorView), update_time: time(newest(sensors.map((s) => s.time)), tz) };
  },
});

const counters = defineCall({
  path: 'tracker/get_counters',
  summary: 'Counters: odometer (km), fuel_consumed (litres), engine_hours (hours); those the device reports, the rest computed by the telemetry core.',
  params,
  async handler({ services, owner, user, params: p }) {
    const { tracker, state } = await readable(services, owner, p.tracker_id, 204);
    const tz = user.time_zone;
    const reported = readCounters(state?.attrs ?? {}).map((c) => ({ type: c.type, value: c.value, update_time: formatDateTime(c.time, tz) }));
    // Where the device does not report a counter, the telemetry core's computed one (docs/telemetry.md).
    const computed = await services.store.data.telemetry.counters(tracker.source_id);
    if (computed) {
      const have = new Set(reported.map((c) => c.type));
      const update_time = formatDateTime(computed.updated, tz);
      const round = (v: number) => Math.round(v * 1000) / 1000;
      if (!have.has('odometer')) reported.push({ type: 'odometer', value: round(computed.odometerKm), update_time });
      if (!have.has('engine_hours')) reported.push({ type: 'engine_hours', value: round(computed.engineHours), update_time });
      if (!have.has('fuel_consumed') && computed.fuelConsumedL > 0) reported.push({ type: 'fuel_consumed', value: round(computed.fuelConsumedL), update_time });
    }
    return { user_time: formatDateTime(services.now(), tz), list: reported };
  },
});

/** The lost-connection threshold the source state's connection_status uses (FSM_CONNECTION_LOST_SECONDS). */
export const lostMs = (services: Services) => services.config.connection.lostSeconds * 1000;

const getState = defineCall({
  path: 'tracker/get_state',
  summary: 'The current state of the tracker (gps, connection and movement status, gsm, battery, inputs, outputs); the same object the live channel sends (docs/live.md).',
  params,
  async handler({ services, owner, user, params: p }) {
    const { tracker, state } = await readable(services, owner, p.tracker_id, 201);
    const now = services.now();
    return { user_time: formatDateTime(now, user.time_zone), state: sourceState(tracker, state, user.time_zone, now, lostMs(services)) };
  },
});

/** Navixy's limit of trackers per get_states call. */
const MAX_STATES = 2000;

const getStates = defineCall({
  path: 'tracker/get_states',
  summary: `Current states of several trackers (at most ${MAX_STATES}), keyed by tracker id. list_blocked: blocked ids listed instead of 208; allow_not_exist: missing ids listed instead of 217.`,
  params: z.object({ trackers: z.array(id).min(1).max(MAX_STATES), list_blocked: z.boolean().default(false), allow_not_exist: z.boolean().default(false) }),
  async handler({ services, owner, user, params: p }) {
    const now = services.now();
    const tz = user.time_zone;
    const states: Record<string, unknown> = {};
    const blocked: number[] = [];
    const missing: number[] = [];
    for (const trackerId of new Set(p.trackers)) {
      const tracker = await services.store.data.trackers.get(owner.id, trackerId);
      if (!tracker || tracker.corrupted) missing.push(trackerId);
      else if (tracker.blocked) blocked.push(trackerId);
      else states[trackerId] = sourceState(tracker, await services.store.data.deviceState.get(tracker.source_id), tz, now, lostMs(services));
    }
    if (missing.length && !p.allow_not_exist) throw new DomainError(217, { ids: missing }, `List contains non-existent entities: trackers ${missing.join(', ')}`);
    if (blocked.length && !p.list_blocked) throw new DomainError(208, {}, `Device blocked: trackers ${blocked.join(', ')}`);
    const out: Record<string, unknown> = { user_time: formatDateTime(now, tz), states };
    if (p.list_blocked) out.blocked = blocked;
    if (p.allow_not_exist) out.not_exist = missing;
    return out;
  },
});

export const trackerStateCalls = [lastGpsPoint, diagnostics, inputs, fuel, counters, getState, getStates];
