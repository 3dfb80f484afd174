/**
 * A telemetry round, as a worker thread runs it (workers/telemetry.ts is its Piscina entry): the
 * points of each device's window read in one snapshot through the thread's own connection, the pure
 * pipeline over them, geofences and visits, then the results written and the tasks judged from the
 * new visits in one transaction; the round's result says what changed. The thread keeps only
 * caches: its connection and the geofence index, rebuilt when the database's `geo` version changes.
 */
import { pointsOf } from './points.ts';
import { GeoIndex } from './geofence/index.ts';
import { NearbyProbe } from './geofence/nearby.ts';
import { DEFAULT_VISIT_SETTINGS, EMPTY_VISIT_STATE, visitMargin, visitStep, type VisitState } from './geofence/visits.ts';
import { process as runPipeline, replayFrom, type PipelineState } from './pipeline.ts';
import { judgeAfterWindow, type TaskChange } from './task-judge.ts';
import { openTelemetryStore, type TelemetryStore, type WindowResult as StoredWindow } from '../store/telemetry.ts';
import type { Counters, Point, Segment, TrackerEvent, TrackerSettings, Visit } from '../core/telemetry.ts';
import { FLAG, trackPointsOf, type FullPointColumns, type PointColumns } from '../core/point.ts';

/** Simplify a long track line to `limit` points (track/read and track/download, off the event loop). */
export interface SimplifyTask {
  kind: 'simplify';
  lat: Float64Array;
  lng: Float64Array;
  limit: number;
}

/** One round: the windows of several devices, read, processed and written one after the other. */
export interface RoundTask {
  kind: 'process';
  dbFile: string;
  geoVersion: number;
  now: number;
  windows: WindowTask[];
  /** Answer each window's new visits too (only when someone listens: cloning them costs the main thread). */
  withVisits?: boolean;
  /**
   * Shared with the scheduler: set to 1 when the server stops. The round then ends after the window
   * it is in and writes what it processed; the other windows stay pending for the next start.
   */
  stop?: Int32Array;
}

export interface WindowTask {
  sourceId: number;
  /** Owners of the trackers over this device: their zones and places count (and task zones of these trackers). */
  ownerIds: number[];
  trackerIds: number[];
  settings: TrackerSettings;
  fuelPer100Km?: number;
  /** JSON of the state to continue from; null: the device's very beginning. */
  state: string | null;
  /** Time the window starts at (the checkpoint's or just after the tail). */
  from: number;
  /** Most points read: a window that gets this many continues from its tail in the next round. */
  limit: number;
  /** The pending row's counters when the window was taken (it is cleared only if nothing came since). */
  version: number;
  lateVersion: number;
}

export interface RoundResult {
  /** Devices whose results were written. */
  written: number[];
  /** Points read per window, in the order of the task's windows. */
  points: number[];
  processed: number;
  /** The outcomes judged from the round's visits, written in its transaction. */
  tasks: TaskChange[];
  /** The visits each written window replaced its period's with (from its `from` on, still open ones included); empty unless asked (`withVisits`). */
  visits: Array<{ sourceId: number; from: number; visits: Visit[] }>;
}

/** What processing one window's points gives. */
interface WindowOutput {
  state: string;
  closed: Segment[];
  /** Segments still going on: the GNSS one and the GSM LBS one. */
  open: Segment[];
  /** Per stream, the start from which this window's segments replace the stored ones. */
  replay: { gnss: number; lbs: number };
  counters: Counters;
  checkpoints: Array<{ time: number; state: string }>;
  /** Visits that ended in this batch (full: enter and exit). */
  visitsClosed: Visit[];
  /** Visits still going on at the end of the batch. */
  visitsOpen: Visit[];
  lastTime: number | null;
  processed: number;
  /** The window's track points (what track/read shows). */
  trackPoints: PointColumns;
  /** The events the window's points revealed (docs/events.md): they replace those decided from its start on. */
  events: TrackerEvent[];
}

interface State {
  pipeline?: PipelineState;
  visits: VisitState;
}

let geo: { version: number; index: GeoIndex } | undefined;
let store: TelemetryStore | undefined;

/** This worker's connection: it reads points and geofences and writes the results of its windows. */
function telemetryStore(dbFile: string): TelemetryStore {
  return (store ??= openTelemetryStore(dbFile));
}

/** The geofence index of the current `geo` version (zones, places and task zones). */
function geoIndex(dbFile: string, version: number): GeoIndex {
  if (geo?.version === version) return geo.index;
  const rows = telemetryStore(dbFile).geoRows();
  geo = { version, index: GeoIndex.fromRows(rows.zones, rows.zonePoints, rows.places, rows.tasks) };
  return geo.index;
}

/** Read, process and write one round's windows through this thread's connection; answers what changed. */
export function processRound(round: RoundTask): RoundResult {
  if (round.stop && Atomics.load(round.stop, 0)) return { written: [], points: round.windows.map(() => 0), processed: 0, tasks: [], visits: [] };
  const store = telemetryStore(round.dbFile);
  const index = geoIndex(round.dbFile, round.geoVersion);
  // Up to `limit` points of each window from its start, all in one snapshot.
  // The alarm values (kept in the attributes' JSON) only of windows with a point flagged as alarm.
  const { columns, alarms } = store.readSnapshot(() => {
    const columns = round.windows.map((w) => store.pointColumns(w.sourceId, w.from, w.limit));
    const alarms = columns.map((c, i) => (hasAlarm(c) ? store.alarmsOf(round.windows[i].sourceId, c.time[0], c.time[c.n - 1]) : undefined));
    return { columns, alarms };
  });
  const writes: StoredWindow[] = [];
  const judged: Array<{ sourceId: number; trackerIds: number[]; from: number; visits: Visit[] }> = [];
  let processed = 0;
  for (let i = 0; i < round.windows.length; i++) {
    if (round.stop && Atomics.load(round.stop, 0)) break;
    const t = round.windows[i];
    const cols = columns[i];
    if (!cols.n) {
      store.clearIfUnchanged(t.sourceId, t.version); // nothing with a location in the window
      continue;
    }
    const w = processWindow(t, cols, index, round.now, alarms[i]);
    processed += w.processed;
    const visits = [...w.visitsClosed, ...w.visitsOpen];
    writes.push({
      sourceId: t.sourceId,
      from: t.from,
      segments: [...w.closed, ...w.open.map((o) => ({ ...o, open: true }))],
      replay: w.replay,
      checkpoints: w.checkpoints,
      visits,
      counters: w.counters,
      pendingVersion: t.version,
      lateVersion: t.lateVersion,
      // A window cut at its point limit continues from its tail next round.
      complete: cols.n < t.limit,
      tail: w.lastTime === null ? null : { time: w.lastTime, state: w.state },
      now: round.now,
      trackPoints: w.lastTime === null ? undefined : { from: t.from, to: w.lastTime, points: w.trackPoints },
      events: w.events,
    });
    judged.push({ sourceId: t.sourceId, trackerIds: t.trackerIds, from: t.from, visits });
  }
  // Task outcomes in the same transaction as the visits they follow from.
  const tasks = store.writeAll(writes, () => judged.flatMap((j) => judgeAfterWindow(store, j, round.now))) ?? [];
  return { written: writes.map((w) => w.sourceId), points: columns.map((c) => c.n), processed, tasks, visits: round.withVisits ? judged.map((j) => ({ sourceId: j.sourceId, from: j.from, visits: j.visits })) : [] };
}

function hasAlarm(c: FullPointColumns): boolean {
  for (let i = 0; i < c.n; i++) if (c.flags[i] & FLAG.alarm) return true;
  return false;
}

/** The alarm values onto their points (both in time order). */
function withAlarms(points: Point[], alarms: Array<{ time: number; alarm: string }>): void {
  let k = 0;
  for (const a of alarms) {
    while (k < points.length && points[k].time < a.time) k++;
    if (k < points.length && points[k].time === a.time) points[k].alarm = a.alarm;
  }
}

/** The accepted point at `time` (a visit's enter or exit), else the point that confirmed it. */
function pointAt(accepted: readonly Point[], time: number, fallback: Point): Point {
  let lo = 0;
  let hi = accepted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const t = accepted[mid].time;
    if (t === time) return accepted[mid];
    if (t < time) lo = mid + 1;
    else hi = mid - 1;
  }
  return fallback;
}

function processWindow(task: WindowTask, cols: FullPointColumns, index: GeoIndex, now: number, alarms?: Array<{ time: number; alarm: string }>): WindowOutput {
  const points = pointsOf(cols);
  if (alarms?.length) withAlarms(points, alarms);
  const start: State = task.state ? (JSON.parse(task.state) as State) : { visits: EMPTY_VISIT_STATE };
  const replay = start.pipeline ? replayFrom(start.pipeline, task.from) : { gnss: 0, lbs: 0 };
  const out = runPipeline(start.pipeline, points, task.settings, { now, fuelPer100Km: task.fuelPer100Km });

  // Geofences over the accepted points, in order; the visit state is snapshot at each checkpoint
  // time so a checkpoint restores the whole state.
  let visits = start.visits;
  const visitsClosed: Visit[] = [];
  const zoneEvents: TrackerEvent[] = [];
  const marks = out.checkpoints.map((c) => c.time);
  const visitAt = new Map<number, VisitState>();
  let m = 0;
  const nearby = new NearbyProbe(index, task.ownerIds, task.trackerIds.length === 1 ? task.trackerIds[0] : undefined);
  for (const p of out.accepted) {
    while (m < marks.length && marks[m] <= p.time) visitAt.set(marks[m++], visits);
    // Task zones count for the tracker a task is assigned to (with clones, for any of them: the
    // task judge looks only at its own tracker's stays).
    const hits = nearby.probe(p.lat, p.lng, visitMargin(p, DEFAULT_VISIT_SETTINGS));
    const step = visitStep(visits, p, hits);
    visits = step.state;
    for (const e of step.events) {
      if (e.exit !== null) visitsClosed.push(e);
      // Zone entries and exits (docs/events.md), decided by this point, located where they happened.
      if (e.kind === 'zone') {
        const time = e.exit ?? e.enter;
        const at = pointAt(out.accepted, time, p);
        zoneEvents.push({ type: e.exit === null ? 'zone_enter' : 'zone_exit', time, decided: p.time, lat: at.lat, lng: at.lng, extra: { zone_id: e.id } });
      }
    }
  }
  while (m < marks.length) visitAt.set(marks[m++], visits);
  const visitsOpen: Visit[] = visits.fences.filter((f) => f.enter !== null).map((f) => ({ kind: f.kind, id: f.id, enter: f.enter!, exit: null }));

  return {
    state: JSON.stringify({ pipeline: out.state, visits } satisfies State),
    closed: out.closed,
    open: [out.open, out.openLbs].filter((x): x is Segment => x !== null),
    replay,
    counters: out.counters,
    checkpoints: out.checkpoints.map((c) => ({ time: c.time, state: JSON.stringify({ pipeline: c.state, visits: visitAt.get(c.time) ?? visits } satisfies State) })),
    visitsClosed,
    visitsOpen,
    lastTime: points.length ? points[points.length - 1].time : null,
    processed: points.length,
    trackPoints: trackPointsOf(cols),
    events: zoneEvents.length ? [...out.events, ...zoneEvents] : out.events,
  };
}
