/**
 * A telemetry worker. Three kinds of task: `read` the points of a round's windows (its own
 * connection) into one buffer of PointBatch messages; `process` a round: the pure pipeline over each
 * device's batch, geofences and visits, then the results written through its own connection (SQLite
 * serializes writers); `simplify` a long track line for the API. State comes in and goes out with
 * every batch (JSON); the worker keeps only caches: its connection and the geofence index, rebuilt
 * when the database's `geo` version changes.
 */
import { Piscina } from 'piscina';
import { simplifyLine } from '../src/tracks/simplify.ts';
import { decodePoints, encodeColumns, joinBatches } from '../src/telemetry/batch.ts';
import { GeoIndex } from '../src/telemetry/geofence/index.ts';
import { NearbyProbe } from '../src/telemetry/geofence/nearby.ts';
import { DEFAULT_VISIT_SETTINGS, EMPTY_VISIT_STATE, visitMargin, visitStep, type VisitState } from '../src/telemetry/geofence/visits.ts';
import { process as runPipeline, replayFrom, type PipelineState } from '../src/telemetry/pipeline.ts';
import { loadGeoRows } from '../src/store/geo.ts';
import { openDatabase } from '../src/store/db.ts';
import { TelemetryStore, type WindowResult as StoredWindow } from '../src/store/telemetry.ts';
import type { Counters, Point, Segment, TrackerSettings, Visit } from '../src/telemetry/types.ts';
import { emptyPacked, type PackedPoints } from '../src/store/track-points.ts';

/** Read the points of a round's windows (the scheduler's first step), answered as one buffer of PointBatch messages (`joinBatches`). */
export interface ReadTask {
  kind: 'read';
  dbFile: string;
  windows: Array<{ sourceId: number; from: number; limit: number }>;
}

/** Simplify a long track line to `limit` points (track/read and track/download, off the event loop). */
export interface SimplifyTask {
  kind: 'simplify';
  lat: Float64Array;
  lng: Float64Array;
  limit: number;
}

/** One round: the windows of several devices, processed one after the other. */
export interface RoundTask {
  kind: 'process';
  dbFile: string;
  geoVersion: number;
  now: number;
  windows: WindowTask[];
  /** Every device taken in the round (also those without points): what to write for each. */
  write: Array<{ sourceId: number; from: number; version: number; lateVersion: number; complete: boolean }>;
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
  points: Uint8Array;
}

export interface RoundResult {
  /** Devices whose results were written. */
  written: number[];
  processed: number;
}

export interface WindowResult {
  sourceId: number;
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
  /** The window's points as track points (what track/read shows). */
  trackPoints: PackedPoints;
}

interface State {
  pipeline?: PipelineState;
  visits: VisitState;
}

let geo: { version: number; index: GeoIndex } | undefined;
let store: TelemetryStore | undefined;

/** This worker's connection: it reads geofences and writes the results of its windows. */
function telemetryStore(dbFile: string): TelemetryStore {
  return (store ??= new TelemetryStore(openDatabase(dbFile)));
}

/** The geofence index of the current `geo` version (zones, places and task zones). */
function geoIndex(dbFile: string, version: number): GeoIndex {
  if (geo?.version === version) return geo.index;
  const rows = loadGeoRows(telemetryStore(dbFile).db);
  geo = { version, index: GeoIndex.fromRows(rows.zones, rows.zonePoints, rows.places, rows.tasks) };
  return geo.index;
}

export default function handle(task: ReadTask | RoundTask | SimplifyTask): RoundResult | ReturnType<typeof Piscina.move> {
  if (task.kind === 'simplify') return Piscina.move(simplifyLine(task.lat, task.lng, task.limit));
  return task.kind === 'read' ? readRound(task) : processRound(task);
}

/** Up to `limit` points of each window from its start, in one read transaction; the buffer is moved, not copied. */
function readRound(task: ReadTask): ReturnType<typeof Piscina.move> {
  const store = telemetryStore(task.dbFile);
  const parts = store.db.transaction(() =>
    task.windows.map((w) => {
      const cols = store.pointColumns(w.sourceId, w.from, w.limit);
      return { n: cols.n, bytes: cols.n ? encodeColumns(cols) : new Uint8Array(0) };
    }),
  )();
  return Piscina.move(joinBatches(parts));
}

function processRound(round: RoundTask): RoundResult {
  const index = geoIndex(round.dbFile, round.geoVersion);
  const results = new Map(round.windows.map((w) => [w.sourceId, processWindow(w, index, round.now)]));
  const store = telemetryStore(round.dbFile);
  const writes: StoredWindow[] = [];
  let processed = 0;
  for (const t of round.write) {
    const w = results.get(t.sourceId);
    if (!w) {
      store.clearIfUnchanged(t.sourceId, t.version); // nothing with a location in the window
      continue;
    }
    processed += w.processed;
    writes.push({
      sourceId: t.sourceId,
      from: t.from,
      segments: [...w.closed, ...w.open.map((o) => ({ ...o, open: true }))],
      replay: w.replay,
      checkpoints: w.checkpoints,
      visits: [...w.visitsClosed, ...w.visitsOpen],
      counters: w.counters,
      pendingVersion: t.version,
      lateVersion: t.lateVersion,
      // A window cut at its point limit continues from its tail next round.
      complete: t.complete,
      tail: w.lastTime === null ? null : { time: w.lastTime, state: w.state },
      now: round.now,
      trackPoints: w.lastTime === null ? undefined : { from: t.from, to: w.lastTime, points: w.trackPoints },
    });
  }
  store.writeAll(writes);
  return { written: writes.map((w) => w.sourceId), processed };
}

/** The points track/read shows (the store's rule): valid, with a location, not at 0,0. */
function trackPointsOf(points: readonly Point[]): PackedPoints {
  const out = emptyPacked(points.length);
  for (const p of points) {
    if (!p.valid || !Number.isFinite(p.lat) || !Number.isFinite(p.lng) || (p.lat === 0 && p.lng === 0)) continue;
    out.time[out.n] = p.time;
    out.lat[out.n] = p.lat;
    out.lng[out.n] = p.lng;
    out.lbs[out.n++] = p.lbs ? 1 : 0;
  }
  return out;
}

function processWindow(task: WindowTask, index: GeoIndex, now: number): WindowResult {
  const points = decodePoints(task.points);
  const start: State = task.state ? (JSON.parse(task.state) as State) : { visits: EMPTY_VISIT_STATE };
  const replay = start.pipeline ? replayFrom(start.pipeline, task.from) : { gnss: 0, lbs: 0 };
  const out = runPipeline(start.pipeline, points, task.settings, { now, fuelPer100Km: task.fuelPer100Km });

  // Geofences over the accepted points, in order; the visit state is snapshot at each checkpoint
  // time so a checkpoint restores the whole state.
  let visits = start.visits;
  const visitsClosed: Visit[] = [];
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
    for (const e of step.events) if (e.exit !== null) visitsClosed.push(e);
  }
  while (m < marks.length) visitAt.set(marks[m++], visits);
  const visitsOpen: Visit[] = visits.fences.filter((f) => f.enter !== null).map((f) => ({ kind: f.kind, id: f.id, enter: f.enter!, exit: null }));

  return {
    sourceId: task.sourceId,
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
    trackPoints: trackPointsOf(points),
  };
}
