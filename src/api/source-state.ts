/**
 * The source state of a tracker (Navixy tracker/get_state's `state`; the same object is each item of
 * tracker/get_states and of the live channel's `state` and `state_batch` events, docs/live.md).
 * Written once here from what the gateway keeps in device_state; the attribute names are read by
 * src/telemetry/sensors.ts. What we do not know yet is null and says so in docs/live.md.
 */
import type { DeviceState } from '../store/device-state.ts';
import type { TrackerRow } from '../store/trackers.ts';
import { readInputs, readOutputs } from '../telemetry/sensors.ts';
import { DEFAULT_SETTINGS } from '../telemetry/types.ts';
import { formatDateTime } from '../core/time.ts';

export type ConnectionStatus = 'just_registered' | 'active' | 'idle' | 'signal_lost' | 'offline';

/** After this long without any data a device is `offline` rather than `signal_lost`. */
export const OFFLINE_AFTER_MS = 86_400_000;

/**
 * From the times of the last record and of the last valid fix: nothing yet `just_registered`;
 * data within `lostMs` (FSM_CONNECTION_LOST_SECONDS) `active`, or `idle` when its last valid fix
 * is older than that; `signal_lost` up to a day without data, then `offline`.
 */
export function connectionStatus(s: DeviceState | undefined, now: number, lostMs: number): ConnectionStatus {
  if (!s || s.lastTime === null) return 'just_registered';
  const silent = now - s.lastTime;
  if (silent > OFFLINE_AFTER_MS) return 'offline';
  if (silent > lostMs) return 'signal_lost';
  return s.fixTime !== null && now - s.fixTime <= lostMs ? 'active' : 'idle';
}

/** GSM signal in percent from `rssi`: 0..5 bars (Teltonika and most binary protocols) or 0..31 (AT+CSQ). */
function gsmPercent(rssi: unknown): number | null {
  if (typeof rssi !== 'number' || !Number.isFinite(rssi) || rssi < 0) return null;
  if (rssi <= 5) return Math.round(rssi * 20);
  return rssi <= 31 ? Math.round((rssi / 31) * 100) : null;
}

/** GNSS signal in percent from the satellites in view: 10 or more is 100 %. */
const gnssPercent = (satellites: number | null) => (satellites === null ? null : Math.min(100, Math.round(satellites * 10)));

/** The full source state, in the user's time zone. */
export function sourceState(t: TrackerRow, s: DeviceState | undefined, tz: string, now: number, lostMs: number): Record<string, unknown> {
  const time = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : formatDateTime(ms, tz));
  const a = s?.attrs ?? {};
  const hasFix = !!s && s.fixTime !== null && s.lat !== null && s.lng !== null;
  const gps: Record<string, unknown> = {
    updated: time(s?.fixTime),
    signal_level: hasFix ? gnssPercent(s!.satellites) : null,
    location: hasFix ? { lat: s!.lat, lng: s!.lng } : null,
    heading: Math.round(s?.course ?? 0) % 360,
    speed: Math.round(s?.speed ?? 0),
    alt: Math.round(s?.alt ?? 0),
  };
  if (s?.precision !== null && s?.precision !== undefined) gps.precision = Math.round(s.precision);
  const ignition = a.ignition && typeof a.ignition[0] === 'boolean' ? a.ignition : undefined;
  const moving = hasFix && (s!.speed ?? 0) >= DEFAULT_SETTINGS.parkingSpeedKmh && ignition?.[0] !== false;
  const rssi = a.rssi;
  const operator = a.operator;
  const roaming = a.roaming;
  const gsmTimes = [rssi?.[1], operator?.[1], roaming?.[1]].filter((x): x is number => x !== undefined);
  const battery = a.batteryLevel && typeof a.batteryLevel[0] === 'number' ? a.batteryLevel : undefined;
  const inputs = readInputs(a, t.protocol);
  const outputs = readOutputs(a);
  const out: Record<string, unknown> = {
    source_id: t.source_id,
    gps,
    connection_status: connectionStatus(s, now, lostMs),
    movement_status: moving ? 'moving' : ignition?.[0] ? 'stopped' : 'parked',
    // when the movement status last changed is not kept yet
    movement_status_update: null,
  };
  if (ignition) {
    out.ignition = ignition[0];
    out.ignition_update = time(ignition[1]);
  }
  out.gsm = gsmTimes.length
    ? {
        updated: time(Math.max(...gsmTimes)),
        signal_level: gsmPercent(rssi?.[0]),
        network_name: operator ? String(operator[0]) : null,
        roaming: roaming ? roaming[0] === true || roaming[0] === 1 : null,
      }
    : null;
  out.last_update = time(s?.lastTime);
  out.battery_level = battery ? Math.round(battery[0] as number) : null;
  out.battery_update = time(battery?.[1]);
  out.inputs = inputs.inputs;
  out.inputs_update = time(inputs.time);
  out.outputs = outputs.outputs;
  out.outputs_update = time(outputs.time);
  const additional: Record<string, unknown> = {};
  if (a.driverUniqueId) additional.hardware_key = { value: String(a.driverUniqueId[0]), updated: time(a.driverUniqueId[1]) };
  out.additional = additional;
  out.actual_track_update = null;
  return out;
}

/** The members of the compact source state (Navixy websocket events, "Compact source state"). */
const COMPACT = ['source_id', 'gps', 'connection_status', 'movement_status', 'movement_status_update', 'ignition', 'ignition_update', 'last_update'] as const;

export function compactState(full: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of COMPACT) if (k in full) out[k] = full[k];
  return out;
}
