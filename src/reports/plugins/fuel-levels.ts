/**
 * Fills and drains in a series of fuel level readings (plugin 10; the algorithm is written out in
 * docs/reports.md). Pure: readings in, smoothed levels and episodes out. Levels are in the sensor's
 * unit (litres, or percent of the tank for sensors that report percent); so are the thresholds.
 */
import type { AttrValue } from '../../../protocols/types.ts';
import { DEFAULT_SETTINGS } from '../../core/telemetry.ts';
import { readSensors } from '../../telemetry/sensors.ts';

export interface LevelReading {
  time: number;
  level: number;
  lat: number | null;
  lng: number | null;
  speed: number;
}

export type LevelUnit = 'litre' | 'percent';

/** The level sensors a report reads, best first: litres before percent, the device's own before CAN. */
const LEVEL_SENSORS: Array<[string, LevelUnit]> = [
  ['fuel_level', 'litre'],
  ['can_fuel_litres', 'litre'],
  ['fuel_level', 'percent'],
  ['can_fuel', 'percent'],
];

/** The fuel level of one fix's attributes as the sensor table maps them for the protocol (get_fuel's mapping). */
export function levelOf(attrs: Record<string, AttrValue>, time: number, protocol: string): { level: number; unit: LevelUnit } | undefined {
  const latest = Object.fromEntries(Object.entries(attrs).map(([k, v]) => [k, [v, time] as [AttrValue, number]]));
  const sensors = readSensors(latest, protocol);
  for (const [name, unit] of LEVEL_SENSORS) {
    const s = sensors.find((x) => x.name === name && x.unitsType === unit);
    if (s) return { level: s.value, unit };
  }
  return undefined;
}

/**
 * Median over a window of `window` readings centred on each one (odd; 1 leaves the levels as they
 * are). Near the ends the window shrinks symmetrically, so the first and last readings stay raw.
 * A median keeps steps and ramps where they are and drops spikes shorter than half the window: fuel
 * sloshing in the tank on a bumpy road, a bad reading.
 */
export function medianSmooth(levels: number[], window: number): number[] {
  const h = Math.floor(window / 2);
  return levels.map((_, i) => {
    const k = Math.min(h, i, levels.length - 1 - i);
    const w = levels.slice(i - k, i + k + 1).sort((a, b) => a - b);
    return w[k];
  });
}

/** A change of level smaller than this between two readings is no change (sensor jitter, slow consumption). */
export const FLAT = 0.5;

export interface LevelEpisode {
  kind: 'fill' | 'drain';
  /** Indices of the readings where it starts and ends. */
  start: number;
  end: number;
  /** Smoothed levels then. */
  before: number;
  after: number;
}

export interface EpisodeOptions {
  minFill: number;
  minDrain: number;
  /** A pause longer than this (no change) ends an episode. */
  joinMs: number;
}

/**
 * Episodes of the smoothed levels: runs of steps in one direction (a step is the change between two
 * consecutive readings; one smaller than FLAT is flat). Flat steps within `joinMs` of the last
 * change keep a run going (a pump stopped for a moment), an opposite step ends it. A drop counts only
 * while parked (both readings at or below the parking speed): a drop while driving is consumption,
 * and ends a run. A rising run of at least minFill is a fill, a falling one of at least minDrain a drain.
 */
export function levelEpisodes(r: LevelReading[], s: number[], o: EpisodeOptions): LevelEpisode[] {
  const parked = (k: number) => r[k].speed <= DEFAULT_SETTINGS.parkingSpeedKmh;
  const out: LevelEpisode[] = [];
  let cur: { dir: 1 | -1; start: number; end: number } | null = null;
  const close = () => {
    if (!cur) return;
    const change = s[cur.end] - s[cur.start];
    if (cur.dir === 1 && change >= o.minFill) out.push({ kind: 'fill', start: cur.start, end: cur.end, before: s[cur.start], after: s[cur.end] });
    if (cur.dir === -1 && -change >= o.minDrain) out.push({ kind: 'drain', start: cur.start, end: cur.end, before: s[cur.start], after: s[cur.end] });
    cur = null;
  };
  for (let k = 1; k < r.length; k++) {
    const d = s[k] - s[k - 1];
    const dir = d > FLAT ? 1 : d < -FLAT ? -1 : 0;
    if (dir === 0) {
      if (cur && r[k].time - r[cur.end].time > o.joinMs) close();
    } else if (dir === -1 && !(parked(k - 1) && parked(k))) {
      close();
    } else if (cur && cur.dir === dir) {
      cur.end = k;
    } else {
      close();
      cur = { dir, start: k - 1, end: k };
    }
  }
  close();
  return out;
}
