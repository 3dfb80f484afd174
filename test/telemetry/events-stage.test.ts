/**
 * The event stage (issue 12; docs/events.md) as a pure function: the events of a journey in order,
 * and re-running from every checkpoint re-emits exactly the events decided at or after it (what a
 * window replaces), so late data can never lose or duplicate one.
 */
import { describe, expect, it } from 'vitest';
import { process } from '../../src/telemetry/pipeline.ts';
import { alarmType } from '../../src/telemetry/stages/events.ts';
import { DEFAULT_SETTINGS, type Point, type TrackerEvent } from '../../src/telemetry/types.ts';
import { journey } from './journeys.ts';

const T0 = Date.UTC(2026, 10, 20, 6, 0, 0);
const settings = { ...DEFAULT_SETTINGS, speedLimitKmh: 60 };
const ctx = { now: T0 + 7 * 86_400_000 };

/** A day: parked, fast and slow drives, a short stop, a parking with ignition off, a silence, alarms. */
function day(): Point[] {
  const pts = journey({ lat: 52.52, lng: 13.4, time: T0 }, { ignition: true })
    .stop({ minutes: 6, ignitionOff: true })
    .drive({ km: 3, kmh: 50 })
    .drive({ km: 2, kmh: 90 })
    .drive({ km: 1, kmh: 40 })
    .stop({ minutes: 2 })
    .drive({ km: 4, kmh: 75 })
    .stop({ minutes: 10, ignitionOff: true })
    .gap({ minutes: 30 })
    .drive({ km: 2, kmh: 70 })
    .build().points;
  pts[100] = { ...pts[100], event: true, alarm: 'sos' };
  pts[200] = { ...pts[200], event: true, alarm: 'powerCut,tow' };
  pts[250] = { ...pts[250], event: true, alarm: 'weird' };
  return pts;
}

const key = (e: TrackerEvent) => `${e.type}@${e.time}#${e.decided}`;

describe('the event stage', () => {
  const points = day();
  const all = process(undefined, points, settings, ctx);

  it('records each kind once where the journey has it', () => {
    const types = all.events.map((e) => e.type);
    // The last drive (70 km/h) is still over the limit when the day ends: its episode is open.
    expect(types.filter((t) => t === 'speeding_start').length).toBe(types.filter((t) => t === 'speeding_end').length + 1);
    expect(all.state.events?.speeding).not.toBeNull();
    expect(types.filter((t) => t === 'speeding_start').length).toBeGreaterThanOrEqual(2);
    expect(types.filter((t) => t.startsWith('ignition_'))).toEqual(['ignition_on', 'ignition_off', 'ignition_on']);
    expect(types.filter((t) => t.startsWith('alarm_'))).toEqual(['alarm_sos', 'alarm_power_cut', 'alarm_tow', 'alarm_general']);
    expect(all.events.find((e) => e.type === 'alarm_general')!.extra).toEqual({ alarm: 'weird' });
    // Every event is decided at or after it happened.
    for (const e of all.events) expect(e.decided!).toBeGreaterThanOrEqual(e.time);
    // Every parking segment has its start and end.
    const parkings = all.closed.filter((s) => s.type === 'parking' && !s.gsmLbs);
    expect(all.events.filter((e) => e.type === 'parking_end').map((e) => e.time)).toEqual(parkings.map((p) => p.end));
  });

  it('a re-run from any checkpoint re-emits exactly the events decided from its time on', () => {
    expect(all.checkpoints.length).toBeGreaterThanOrEqual(5);
    for (const cp of all.checkpoints) {
      const again = process(cp.state, points.filter((p) => p.time >= cp.time), settings, ctx);
      expect(again.events.map(key)).toEqual(all.events.filter((e) => e.decided! >= cp.time).map(key));
    }
  });

  it('in batches of any size: the same events', () => {
    for (const size of [1, 7, 100]) {
      let state;
      const got: TrackerEvent[] = [];
      for (let i = 0; i < points.length; i += size) {
        const out = process(state, points.slice(i, i + size), settings, ctx);
        state = out.state;
        got.push(...out.events);
      }
      expect(got.map(key)).toEqual(all.events.map(key));
    }
  });

  it('no limit, no speeding; alarm names in snake case', () => {
    const none = process(undefined, points, DEFAULT_SETTINGS, ctx);
    expect(none.events.some((e) => e.type.startsWith('speeding'))).toBe(false);
    expect([alarmType('lowBattery'), alarmType('gpsAntennaCut'), alarmType('sos'), alarmType('nope')]).toEqual(['alarm_low_battery', 'alarm_gps_antenna_cut', 'alarm_sos', 'alarm_general']);
  });
});
