/**
 * The counters stage (issue 5; docs/telemetry.md "Counters"): odometer, engine hours and fuel
 * consumed, cumulative in the state. Each counter follows the device's own counter once the
 * device has reported one (deltas; a counter going back is a reset, an impossible rise a glitch:
 * both re-baseline without adding), else it is computed: the odometer from trip lengths, engine
 * hours from time with ignition on (or moving, for trackers that never reported ignition), fuel
 * from the norm (litres per 100 km times the odometer's increase). Pure, plain-JSON state.
 */
import type { Counters, Point, TrackerSettings } from '../types.ts';

export interface CounterState {
  odometerKm: number;
  hoursMs: number;
  fuelL: number;
  /** Last device readings (odometer m, hours ms, fuel l); null until the device reports one. */
  devOdometer: number | null;
  devHours: number | null;
  devFuel: number | null;
  /** Computed trip km last seen, to add only the increase. */
  tripKm: number;
  /** Last reported ignition; null while the tracker never reported it. */
  ignition: boolean | null;
  lastTime: number | null;
}

export const EMPTY_COUNTERS: CounterState = {
  odometerKm: 0,
  hoursMs: 0,
  fuelL: 0,
  devOdometer: null,
  devHours: null,
  devFuel: null,
  tripKm: 0,
  ignition: null,
  lastTime: null,
};

export interface CounterInput {
  /** Computed trip km after this point (GNSS trips only). */
  tripKm: number;
  /** Moving time the segmentation counted for this point, ms (engine hours without ignition). */
  movingMs: number;
  fuelPer100Km?: number;
}

/** One input point (any that is not from the future; status records too, for device counters). */
export function countStep(s: CounterState, p: Point, input: CounterInput, st: TrackerSettings): CounterState {
  if (s.lastTime !== null && p.time < s.lastTime) return s;
  const dtMs = s.lastTime === null ? 0 : p.time - s.lastTime;
  const odo = odometer(s, p, input.tripKm, dtMs, st);
  const h = hours(s, p, dtMs, input.movingMs, st);
  const f = fuel(s, p, odo.km - s.odometerKm, input.fuelPer100Km);
  return {
    odometerKm: odo.km,
    hoursMs: h.ms,
    fuelL: f.l,
    devOdometer: odo.dev,
    devHours: h.dev,
    devFuel: f.dev,
    tripKm: input.tripKm,
    ignition: p.ignition ?? s.ignition,
    lastTime: p.time,
  };
}

export function countersOf(s: CounterState): Counters {
  return { odometerKm: s.odometerKm, engineHours: s.hoursMs / 3_600_000, fuelConsumedL: s.fuelL };
}

/** Increase of a device counter; 0 for the first reading, a reset (going back) or a glitch. */
export function deviceDelta(last: number | null, value: number, maxRise: number): number {
  if (last === null) return 0;
  const d = value - last;
  return d >= 0 && d <= maxRise ? d : 0;
}

// Each counter: the device's own once it has reported one (the leg into its first reading is still computed).

function odometer(s: CounterState, p: Point, tripKm: number, dtMs: number, st: TrackerSettings) {
  const computed = s.devOdometer === null ? Math.max(0, tripKm - s.tripKm) : 0;
  if (!finite(p.odometer)) return { km: s.odometerKm + computed, dev: s.devOdometer };
  // No faster than the jump bound, plus 1 km for the device counter's rounding.
  const maxRiseM = (st.maxJumpSpeedKmh / 3.6) * (dtMs / 1000) + 1000;
  return { km: s.odometerKm + computed + deviceDelta(s.devOdometer, p.odometer, maxRiseM) / 1000, dev: p.odometer };
}

function hours(s: CounterState, p: Point, dtMs: number, movingMs: number, st: TrackerSettings) {
  // Ignition holds until the next report; silences longer than the interval-mode gap are unknown.
  const byIgnition = s.ignition === true && dtMs <= st.intervalModeGapSeconds * 1000 ? dtMs : 0;
  const computed = s.devHours !== null ? 0 : s.ignition !== null ? byIgnition : movingMs;
  if (!finite(p.hours)) return { ms: s.hoursMs + computed, dev: s.devHours };
  return { ms: s.hoursMs + computed + deviceDelta(s.devHours, p.hours, dtMs + 60_000), dev: p.hours };
}

function fuel(s: CounterState, p: Point, km: number, per100?: number) {
  const norm = s.devFuel === null && per100 ? (per100 * km) / 100 : 0;
  if (!finite(p.fuelUsed)) return { l: s.fuelL + norm, dev: s.devFuel };
  return { l: s.fuelL + norm + deviceDelta(s.devFuel, p.fuelUsed, Infinity), dev: p.fuelUsed };
}

const finite = (v: number | undefined): v is number => typeof v === 'number' && Number.isFinite(v);
