/**
 * The telemetry core's SQL: what is pending, the points of a window, checkpoints, and the derived
 * data (tracks, visits, counters) written back in one transaction per processed window.
 */
import { DEFAULT_SETTINGS, type Counters, type GeoKind, type Segment, type TrackerEvent, type TrackerSettings, type Visit } from '../core/telemetry.ts';
import { emptyFullColumns, MEASURE_COLUMNS, type FullPointColumns } from '../core/point.ts';
import { openDatabase, type DB } from './db.ts';
import { loadGeoRows, type GeoSnapshot } from './geo.ts';
import type { TaskStatus } from './tasks.ts';
import { TrackPointStore, type PackedPoints } from './track-points.ts';
import { packState, unpackState } from './checkpoint-state.ts';
import { chunkPointColumns, FixChunkStore } from './fix-chunks.ts';

/** What judging a task needs of its row. */
export interface JudgedTask {
  id: number;
  type: 'task' | 'checkpoint';
  route_id: number | null;
  route_order: number | null;
  status: TaskStatus;
  from_time: number | null;
  to_time: number | null;
  max_delay: number;
  min_stay_duration: number;
  tracker_id: number;
  /** 1 when a form is attached (issue 11: then done needs its submission). */
  has_form: number;
  /** The form's FIRST submission (ms UTC), null until submitted. */
  form_submitted: number | null;
  /** For the event log's task_status_changed (docs/events.md). */
  label?: string;
  lat?: number | null;
  lng?: number | null;
}

export interface Pending {
  source_id: number;
  from_time: number;
  version: number;
  /** Earliest time of late data (reaching back before the device's newest fix) not yet processed. */
  late_from: number | null;
  /** Commits of late data so far. */
  late_version: number;
}

export interface WindowResult {
  sourceId: number;
  /** Derived data from this time on is replaced (visits, checkpoints). */
  from: number;
  /** Segments starting at or after these times (per stream: GNSS, GSM LBS) are replaced, and open ones. */
  replay: { gnss: number; lbs: number };
  segments: Segment[];
  checkpoints: Array<{ time: number; state: string }>;
  visits: Visit[];
  counters: Counters;
  /** Pending version seen when the window was taken: the row is cleared only if nothing came since. */
  pendingVersion: number;
  /** Late-data count seen then: if it is unchanged, whatever came meanwhile continues from the tail. */
  lateVersion: number;
  /** State after the last processed point, and that point's time. */
  tail: { time: number; state: string } | null;
  /** The window reached the newest data (else it continues from the tail in the next round). */
  complete: boolean;
  now: number;
  /** The window's track points: they replace the packed points of [from, to]. */
  trackPoints?: { from: number; to: number; points: PackedPoints };
  /** Events revealed by the window: they replace the device's events decided at or after `from` (docs/events.md). */
  events?: TrackerEvent[];
}

const JUDGED = `id, type, route_id, ord AS route_order, status, from_time, to_time, max_delay, min_stay_duration, tracker_id, label, lat, lng,
  EXISTS (SELECT 1 FROM forms fm WHERE fm.task_id = tasks.id) AS has_form, (SELECT fm.first_submitted FROM forms fm WHERE fm.task_id = tasks.id) AS form_submitted`;

// Only columns (migration 011): the attributes processing needs are kept beside the JSON.
const POINTS_SQL = `SELECT time, lat, lng, alt, speed, course, satellites, precision, hdop, flags, odometer, hours, fuel_used
  FROM fixes WHERE source_id = ? AND time >= ? AND time <= ? AND lat IS NOT NULL ORDER BY time LIMIT ?`;


/** A telemetry worker's own connection to the database file. */
export function openTelemetryStore(dbFile: string): TelemetryStore {
  return new TelemetryStore(openDatabase(dbFile));
}

export class TelemetryStore {
  private pendingStmt;
  private pendingOne;
  private clearPending;
  private checkpointBefore;
  private deleteTracks;
  private deleteOpenTracks;
  private deleteOpenVisits;
  private insertTrack;
  private deleteCheckpoints;
  private insertCheckpoint;
  private deleteVisits;
  private insertVisit;
  private countersPut;
  private countersGet;
  private settingsGet;
  private settingsPut;
  private tailGet;
  private advancePending;
  private continuePending;
  private geoStmt;
  private dueStmt;
  private judgeStmt;
  private visitsStmt;
  private visitsBeforeStmt;
  private trackerSourceStmt;
  private routeStmt;
  private oneTaskStmt;
  private outcomeStmt;
  private tailPut;
  private deleteEvents;
  private insertEvent;
  private alarmsStmt;
  private insertTaskEvent;

  /** Set around a `pointColumns` query (synchronous): the aggregate's capacity and its result. */
  private capacity = 0;
  private collected: FullPointColumns | undefined;
  private collectStmt;

  readonly trackPoints: TrackPointStore;
  /** Compacted history (docs/storage.md): windows and alarms read through it. */
  readonly fixChunks: FixChunkStore;

  constructor(readonly db: DB) {
    this.trackPoints = new TrackPointStore(db);
    this.fixChunks = new FixChunkStore(db);
    // Rows straight into the packed columns by an aggregate function: one JS call per row and no
    // per-row array (reading rows as arrays cost about as much again as the scan).
    // Named parameters, not a rest array: no array per row.
    const step = (c: FullPointColumns, time: number, lat: number, lng: number, alt: number | null, speed: number | null, course: number | null, satellites: number | null, precision: number | null, hdop: number | null, flags: number, odometer: number | null, hours: number | null, fuelUsed: number | null): void => {
      const i = c.n++;
      c.time[i] = time;
      c.lat[i] = lat;
      c.lng[i] = lng;
      c.alt[i] = alt ?? NaN;
      c.speed[i] = speed ?? NaN;
      c.course[i] = course ?? NaN;
      c.satellites[i] = satellites ?? NaN;
      c.precision[i] = precision ?? NaN;
      c.hdop[i] = hdop ?? NaN;
      c.odometer[i] = odometer ?? NaN;
      c.hours[i] = hours ?? NaN;
      c.fuelUsed[i] = fuelUsed ?? NaN;
      c.flags[i] = flags; // the one layout (src/core/point.ts): no remapping

    };
    db.aggregate<FullPointColumns>('telemetry_points_collect', {
      start: () => emptyFullColumns(this.capacity),
      step: step as unknown as (acc: FullPointColumns) => void,
      result: (c) => {
        this.collected = c;
        return c.n;
      },
    });
    this.collectStmt = db
      .prepare(`SELECT telemetry_points_collect(time, lat, lng, alt, speed, course, satellites, precision, hdop, flags, odometer, hours, fuel_used) FROM (${POINTS_SQL})`)
      .pluck();
    this.pendingStmt = db.prepare<[number, number], Pending>('SELECT * FROM telemetry_pending WHERE source_id > ? ORDER BY source_id LIMIT ?');
    this.pendingOne = db.prepare<[number], Pending>('SELECT * FROM telemetry_pending WHERE source_id = ?');
    this.clearPending = db.prepare('DELETE FROM telemetry_pending WHERE source_id = ? AND version = ?');
    // Not before where retention kept the device's history from (migration 026): older late data
    // restarts from the checkpoint kept there (its own fixes are gone or about to go).
    this.checkpointBefore = db.prepare<[{ source: number; time: number }], { time: number; state: string | Buffer }>(
      'SELECT time, state FROM telemetry_checkpoints WHERE source_id = @source AND time <= max(@time, coalesce((SELECT kept_from FROM retention_marks WHERE source_id = @source), @time)) ORDER BY time DESC LIMIT 1',
    );
    // Each a range of an index (an OR of them would scan the device's whole history).
    this.deleteOpenTracks = db.prepare('DELETE FROM tracks WHERE source_id = ? AND open = 1');
    this.deleteTracks = db.prepare('DELETE FROM tracks WHERE source_id = ? AND start_time >= ? AND gsm_lbs = ?');
    this.insertTrack = db.prepare(
      `INSERT INTO tracks (source_id, type, start_time, end_time, start_lat, start_lng, end_lat, end_lng, points, length_km, max_speed, avg_speed, gsm_lbs, precision, events, extent_m, open)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.deleteCheckpoints = db.prepare('DELETE FROM telemetry_checkpoints WHERE source_id = ? AND time > ?');
    this.insertCheckpoint = db.prepare('INSERT OR REPLACE INTO telemetry_checkpoints (source_id, time, state) VALUES (?, ?, ?)');
    // Visits still open or ending at or after the window's start (a visit entered after it ends after it too).
    this.deleteOpenVisits = db.prepare('DELETE FROM visits WHERE source_id = ? AND exit_time IS NULL');
    this.deleteVisits = db.prepare('DELETE FROM visits WHERE source_id = ? AND exit_time >= ?');
    this.insertVisit = db.prepare('INSERT INTO visits (source_id, kind, geo_id, enter_time, exit_time) VALUES (?, ?, ?, ?, ?)');
    this.countersPut = db.prepare('INSERT OR REPLACE INTO telemetry_counters (source_id, odometer_km, engine_hours, fuel_l, updated) VALUES (?, ?, ?, ?, ?)');
    this.countersGet = db.prepare<[number], { odometer_km: number; engine_hours: number; fuel_l: number; updated: number }>('SELECT * FROM telemetry_counters WHERE source_id = ?');
    this.settingsGet = db.prepare<[number], { settings: string }>('SELECT settings FROM telemetry_settings WHERE source_id = ?');
    this.settingsPut = db.prepare('INSERT OR REPLACE INTO telemetry_settings (source_id, settings) VALUES (?, ?)');
    this.judgeStmt = db.prepare(`SELECT ${JUDGED} FROM tasks WHERE tracker_id = ? AND type <> 'route' AND status <> 'unassigned'
        AND (status IN ('assigned', 'arrived', 'delayed') OR to_time + max_delay * 60000 >= ?)`);
    this.visitsBeforeStmt = db.prepare(
      'SELECT kind, geo_id AS id, enter_time AS enter, exit_time AS exit FROM visits WHERE source_id = ? AND kind = ? AND geo_id = ? AND exit_time < ? ORDER BY enter_time',
    );
    this.trackerSourceStmt = db.prepare('SELECT source_id FROM trackers WHERE id = ?').pluck();
    this.visitsStmt = db.prepare('SELECT kind, geo_id AS id, enter_time AS enter, exit_time AS exit FROM visits WHERE source_id = ? AND kind = ? AND geo_id = ? ORDER BY enter_time');
    // Open tasks through their partial index (migration 033), in id order after a cursor.
    this.dueStmt = db.prepare(`SELECT ${JUDGED} FROM tasks WHERE type <> 'route' AND tracker_id IS NOT NULL AND status IN ('assigned', 'arrived')
        AND (to_time + max_delay * 60000 < @now OR (status = 'arrived' AND from_time <= @now)) AND id > @after ORDER BY id LIMIT @limit`);
    this.routeStmt = db.prepare(`SELECT ${JUDGED} FROM tasks WHERE route_id = ? AND type = 'checkpoint' ORDER BY ord, id`);
    this.oneTaskStmt = db.prepare(`SELECT ${JUDGED} FROM tasks WHERE id = ? AND type <> 'route' AND tracker_id IS NOT NULL`);
    this.outcomeStmt = db.prepare(`UPDATE tasks SET status_change_date = CASE WHEN status = @status THEN status_change_date ELSE @at END,
      status = @status, arrival_date = @arrival_date, stay_duration = @stay_duration, completion_date = @completion_date WHERE id = @id`);
    this.advancePending = db.prepare('UPDATE telemetry_pending SET from_time = ?, late_from = NULL WHERE source_id = ? AND version = ?');
    this.continuePending = db.prepare(`UPDATE telemetry_pending SET
        from_time = CASE WHEN late_version = @lateVersion THEN @next ELSE min(coalesce(late_from, @next), @next) END,
        late_from = CASE WHEN late_version = @lateVersion THEN NULL ELSE late_from END
      WHERE source_id = @source AND version <> @version`);
    this.geoStmt = db.prepare("SELECT value FROM versions WHERE name = 'geo'").pluck();
    this.tailGet = db.prepare<[number], { time: number; state: string }>('SELECT time, state FROM telemetry_tail WHERE source_id = ?');
    this.tailPut = db.prepare('INSERT OR REPLACE INTO telemetry_tail (source_id, time, state) VALUES (?, ?, ?)');
    // The events derived from fixes (migration 024): decided from the window's start on are replaced.
    this.deleteEvents = db.prepare('DELETE FROM events WHERE source_id = ? AND decided >= ?');
    this.insertEvent = db.prepare('INSERT INTO events (source_id, type, time, decided, lat, lng, extra) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.insertTaskEvent = db.prepare("INSERT INTO events (source_id, tracker_id, type, time, decided, lat, lng, extra) VALUES (?, ?, 'task_status_changed', ?, NULL, ?, ?, ?)");
    this.alarmsStmt = db.prepare<[number, number, number], { time: number; alarm: string }>(
      `SELECT time, json_extract(attrs, '$.alarm') AS alarm FROM fixes WHERE source_id = ? AND time >= ? AND time <= ? AND lat IS NOT NULL AND flags & 32 AND json_valid(attrs)`,
    );
  }

  /** The alarm values (attribute `alarm`) of a device's located fixes flagged as alarms in [from, to], in time order. */
  alarmsOf(sourceId: number, from: number, to: number): Array<{ time: number; alarm: string }> {
    const out: Array<{ time: number; alarm: string }> = [];
    for (const p of this.fixChunks.pieces(sourceId, from, to)) {
      if (!p.chunk) out.push(...this.alarmsStmt.all(sourceId, p.from, p.to).filter((r) => typeof r.alarm === 'string'));
      else for (const r of this.fixChunks.decode(sourceId, p.chunk, ['lat', 'flags', 'attrs'])) if (r.time >= p.from && r.time <= p.to && r.lat !== null && r.flags & 32) pushAlarm(out, r.time, r.attrs);
    }
    return out;
  }

  /**
   * Tasks and checkpoints of these trackers to judge after data from `since` was processed: those
   * still open, and those whose window (to + max_delay) reaches into the reprocessed period, whatever
   * their status (late data may change a failed task).
   */
  tasksToJudge(trackerIds: number[], since: number): JudgedTask[] {
    return trackerIds.flatMap((id) => this.judgeStmt.all(id, since) as JudgedTask[]);
  }
  /** Open tasks whose time-based transition may be due by `now` (the minute timer), in id order after `after`, at most `limit`. */
  tasksDue(now: number, after = 0, limit = -1): JudgedTask[] {
    return this.dueStmt.all({ now, after, limit }) as JudgedTask[];
  }
  /** One task or checkpoint to judge again after its facts changed (a form submitted, attached or deleted). */
  taskToJudge(id: number): JudgedTask | undefined {
    return this.oneTaskStmt.get(id) as JudgedTask | undefined;
  }
  /** The checkpoints of a route, in route order. */
  checkpointsOf(routeId: number): JudgedTask[] {
    return this.routeStmt.all(routeId) as JudgedTask[];
  }
  /** Stays of a device in a geofence. */
  visitsOf(sourceId: number, kind: GeoKind, geoId: number): Visit[] {
    return this.visitsStmt.all(sourceId, kind, geoId) as Visit[];
  }
  /** Stays that ended before `time`: what a window processed from `time` on keeps (it replaces the rest). */
  visitsEndedBefore(sourceId: number, kind: GeoKind, geoId: number, time: number): Visit[] {
    return this.visitsBeforeStmt.all(sourceId, kind, geoId, time) as Visit[];
  }
  /** The device (source) of a tracker, clones included. */
  sourceOfTracker(trackerId: number): number | undefined {
    return this.trackerSourceStmt.get(trackerId) as number | undefined;
  }

  /** Runs `fn` in one read transaction: one snapshot of every read in it, one lock. */
  readSnapshot<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /** The rows the geofence index is built from, with the `geo` version they belong to. */
  geoRows(): GeoSnapshot {
    return loadGeoRows(this.db);
  }

  /** Closes the connection (a worker's own store). */
  close(): void {
    this.db.close();
  }
  /** Run `fn` in one write transaction (a savepoint inside another). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }
  /** The event log's task_status_changed (docs/events.md), for the task's tracker: call it in the transaction of the outcome. */
  recordTaskStatus(t: JudgedTask, previous: TaskStatus, status: TaskStatus, at: number): void {
    const source = this.trackerSourceStmt.get(t.tracker_id) as number | undefined;
    if (source === undefined) return;
    const extra = JSON.stringify({ task_id: t.id, task_label: t.label ?? '', old_status: previous, new_status: status });
    this.insertTaskEvent.run(source, t.tracker_id, at, t.lat ?? null, t.lng ?? null, extra);
  }
  /** Record a judged outcome exactly (reprocessing may take a task back: fields can become null again). */
  setTaskOutcome(id: number, o: { status: TaskStatus; at: number; arrival_date: number | null; stay_duration: number; completion_date: number | null }): void {
    this.outcomeStmt.run({ id, ...o });
  }

  /** The state after the last processed point, if any. */
  tail(sourceId: number): { time: number; state: string } | undefined {
    return this.tailGet.get(sourceId);
  }

  /** Nothing to do in the window: forget it, unless new data came meanwhile. */
  clearIfUnchanged(sourceId: number, version: number): void {
    this.clearPending.run(sourceId, version);
  }

  /** Pending devices after this source id, in source id order. */
  pendingAfter(sourceId: number, limit: number): Pending[] {
    return this.pendingStmt.all(sourceId, limit);
  }
  pendingOf(sourceId: number): Pending | undefined {
    return this.pendingOne.get(sourceId);
  }

  /** The state to restart from for data at `time`: the checkpoint at or before it, or where retention kept history from (undefined: from the beginning). */
  checkpoint(sourceId: number, time: number): { time: number; state: string } | undefined {
    const c = this.checkpointBefore.get({ source: sourceId, time });
    return c && { time: c.time, state: unpackState(c.state) };
  }

  /**
   * Up to `limit` fixes with a location from `from` on, in time order, straight into the packed
   * columns the workers take (the telemetry hot path: no object per point on this thread).
   */
  pointColumns(sourceId: number, from: number, limit: number): FullPointColumns {
    if (!this.fixChunks.anyIn(sourceId, from, Number.MAX_SAFE_INTEGER)) return this.rowPointColumns(sourceId, from, Number.MAX_SAFE_INTEGER, limit);
    // Compacted history (late data, reprocessing): chunks and rows in time order, in one snapshot.
    return this.readSnapshot(() => {
      const out = emptyFullColumns(limit);
      for (const p of this.fixChunks.pieces(sourceId, from, Number.MAX_SAFE_INTEGER)) {
        if (out.n >= limit) break;
        if (p.chunk) chunkPointColumns(this.fixChunks.decode(sourceId, p.chunk, POINT_COLUMNS), p.from, p.to, out, limit);
        else appendFull(out, this.rowPointColumns(sourceId, p.from, p.to, limit - out.n));
      }
      return out;
    });
  }

  /** The located rows of `fixes` in [from, to], at most `limit`. */
  private rowPointColumns(sourceId: number, from: number, to: number, limit: number): FullPointColumns {
    this.capacity = limit;
    this.collected = undefined;
    const n = this.collectStmt.get(sourceId, from, to, limit) as number;
    const c = n && this.collected ? this.collected : emptyFullColumns(0);
    this.collected = undefined;
    return c;
  }

  /**
   * Write the results of a round's windows in one transaction; `then` runs inside it, after them
   * (the worker judges the tasks the new visits touch and writes their outcomes there).
   */
  writeAll<T>(ws: WindowResult[], then?: () => T): T | undefined {
    return this.db.transaction(() => {
      ws.forEach((w) => this.writeOne(w));
      return then?.();
    })();
  }

  /** Replace what was derived from `from` on with the new results; clear the pending row if nothing new came. */
  write(w: WindowResult): void {
    this.db.transaction(() => this.writeOne(w))();
  }

  private writeOne(w: WindowResult): void {
    {
      this.deleteOpenTracks.run(w.sourceId);
      this.deleteTracks.run(w.sourceId, w.replay.gnss, 0);
      this.deleteTracks.run(w.sourceId, w.replay.lbs, 1);
      for (const s of w.segments) {
        this.insertTrack.run(w.sourceId, s.type, s.start, s.end, s.startLat, s.startLng, s.endLat, s.endLng, s.points, s.lengthKm, s.maxSpeedKmh, s.avgSpeedKmh, s.gsmLbs ? 1 : 0, s.precision ?? null, s.events, s.extentM ?? null, s.open ? 1 : 0);
      }
      this.deleteCheckpoints.run(w.sourceId, w.from);
      for (const c of w.checkpoints) this.insertCheckpoint.run(w.sourceId, c.time, packState(c.state));
      this.deleteOpenVisits.run(w.sourceId);
      this.deleteVisits.run(w.sourceId, w.from);
      for (const v of w.visits) this.insertVisit.run(w.sourceId, v.kind, v.id, v.enter, v.exit);
      this.deleteEvents.run(w.sourceId, w.from);
      for (const e of w.events ?? []) this.insertEvent.run(w.sourceId, e.type, e.time, e.decided, e.lat, e.lng, isEmpty(e.extra) ? null : JSON.stringify(e.extra));
      if (w.trackPoints) this.trackPoints.replace(w.sourceId, w.trackPoints.from, w.trackPoints.to, w.trackPoints.points);
      this.countersPut.run(w.sourceId, w.counters.odometerKm, w.counters.engineHours, w.counters.fuelConsumedL, w.now);
      if (w.tail) this.tailPut.run(w.sourceId, w.tail.time, w.tail.state);
      if (w.complete) this.clearPending.run(w.sourceId, w.pendingVersion);
      else if (w.tail) this.advancePending.run(w.tail.time + 1, w.sourceId, w.pendingVersion);
      // New data came while the window ran: in-order data continues from the tail; late data (or
      // all of it, when late data came meanwhile) waits from the earliest late time.
      if (w.tail) this.continuePending.run({ source: w.sourceId, version: w.pendingVersion, lateVersion: w.lateVersion, next: w.tail.time + 1 });
    }
  }

  /** The `geo` change counter (zones, places, task zones). */
  geoVersion(): number {
    return this.geoStmt.get() as number;
  }

  counters(sourceId: number): (Counters & { updated: number }) | undefined {
    const r = this.countersGet.get(sourceId);
    return r && { odometerKm: r.odometer_km, engineHours: r.engine_hours, fuelConsumedL: r.fuel_l, updated: r.updated };
  }

  settings(sourceId: number): TrackerSettings {
    const r = this.settingsGet.get(sourceId);
    return r ? { ...DEFAULT_SETTINGS, ...(JSON.parse(r.settings) as Partial<TrackerSettings>) } : { ...DEFAULT_SETTINGS };
  }
  /** Store settings and reprocess the device's history with them. */
  setSettings(sourceId: number, settings: TrackerSettings): void {
    this.db.transaction(() => {
      this.settingsPut.run(sourceId, JSON.stringify(settings));
      this.db.prepare('DELETE FROM telemetry_checkpoints WHERE source_id = ?').run(sourceId);
      this.db.prepare('DELETE FROM telemetry_tail WHERE source_id = ?').run(sourceId);
      this.db
        .prepare(`INSERT INTO telemetry_pending (source_id, from_time, version, late_from, late_version) VALUES (?, 0, 1, 0, 1)
          ON CONFLICT (source_id) DO UPDATE SET from_time = 0, version = version + 1, late_from = 0, late_version = late_version + 1`)
        .run(sourceId);
    })();
  }
}

const POINT_COLUMNS = ['lat', 'lng', 'alt', 'speed', 'course', 'satellites', 'precision', 'hdop', 'flags', 'odometer', 'hours', 'fuel_used'] as const;

/** Appends every point of `src` to `out` (which has room). */
function appendFull(out: FullPointColumns, src: FullPointColumns): void {
  for (const k of ['time', 'lat', 'lng', 'flags', ...MEASURE_COLUMNS] as const) out[k].set(src[k].subarray(0, src.n), out.n);
  out.n += src.n;
}

/** An alarm-flagged fix's `alarm` attribute, when its attributes are JSON and it is a string (as json_extract reads it). */
function pushAlarm(out: Array<{ time: number; alarm: string }>, time: number, attrs: string | null): void {
  if (attrs === null) return;
  try {
    const alarm = (JSON.parse(attrs) as Record<string, unknown>)?.alarm;
    if (typeof alarm === 'string') out.push({ time, alarm });
  } catch {
    /* not JSON: json_valid() leaves it out too */
  }
}

function isEmpty(o: Record<string, unknown>): boolean {
  for (const _ in o) return false;
  return true;
}
