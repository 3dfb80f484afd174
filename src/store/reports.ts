/**
 * Tracker reports (migration 025; docs/reports.md): the queue rows and their results, and the reads
 * the report plugins make of the derived data (parkings, zone visits, fix rows). The body is kept
 * as gzip'd JSON: the queue and the API never parse it, they hand the bytes on.
 */
import type { DB } from './db.ts';
import { FixChunkStore, type StoredFix } from './fix-chunks.ts';

/** What the report reads take of compacted fixes (docs/storage.md). */
const REPORT_COLUMNS = ['lat', 'lng', 'alt', 'speed', 'satellites', 'flags', 'attrs'] as const;
const STEP_COLUMNS = ['speed', 'flags', 'lat', 'lng'] as const;
const FUEL_COLUMNS = ['lat', 'lng', 'speed', 'attrs'] as const;

/** The fuel report's rows out of chunk pieces: those with attributes, as the row read gives them. */
function* fuelRowsOf(fixes: Iterable<StoredFix>): IterableIterator<FuelFixRow> {
  for (const f of fixes) if (f.attrs !== null) yield { time: f.time, lat: f.lat, lng: f.lng, speed: f.speed, attrs: f.attrs };
}

function* stepsOf(rows: Iterable<StoredFix>): Generator<{ time: number; speed: number | null; flags: number; lat: number | null; lng: number | null }> {
  for (const r of rows) yield { time: r.time, speed: r.speed, flags: r.flags, lat: r.lat, lng: r.lng };
}

/**
 * Time, speed, flags and location of fixes as columns (null: NaN), the first `n` of each array: a
 * month of a tracker's fixes read without an object per fix (the speed violation report reads
 * 8.6 million of them for a fleet's month; bench/reports).
 */
export interface StepColumns {
  n: number;
  time: Float64Array;
  speed: Float64Array;
  flags: Float64Array;
  lat: Float64Array;
  lng: Float64Array;
}
const STEP_KEYS = ['time', 'speed', 'flags', 'lat', 'lng'] as const;

function emptySteps(size: number): StepColumns {
  return { n: 0, time: new Float64Array(size), speed: new Float64Array(size), flags: new Float64Array(size), lat: new Float64Array(size), lng: new Float64Array(size) };
}

/** Room for `more` steps after the first n (arrays doubled as needed). */
function reserve(c: StepColumns, more: number): void {
  if (c.n + more <= c.time.length) return;
  const size = Math.max(c.n + more, c.time.length * 2, 1024);
  for (const k of STEP_KEYS) {
    const bigger = new Float64Array(size);
    bigger.set(c[k].subarray(0, c.n));
    c[k] = bigger;
  }
}

const nan = (v: number | null) => (v === null ? NaN : v);

export type ReportState = 'queued' | 'running' | 'ready' | 'failed';

/** A report row without its body. */
export interface ReportRow {
  id: number;
  owner_id: number;
  user_id: number;
  plugin_id: number;
  title: string;
  created: number;
  from_time: number;
  to_time: number;
  params: string;
  state: ReportState;
  percent: number;
  attempts: number;
  error: string | null;
  finished: number | null;
}

export interface NewReport {
  ownerId: number;
  userId: number;
  pluginId: number;
  title: string;
  created: number;
  from: number;
  to: number;
  params: string;
}

const COLUMNS = 'id, owner_id, user_id, plugin_id, title, created, from_time, to_time, params, state, percent, attempts, error, finished';

export class ReportStore {
  private insertStmt;
  private getStmt;
  private listStmt;
  private bodyStmt;
  private activeStmt;
  private pendingStmt;
  private deleteStmt;
  private nextStmt;
  private startStmt;
  private percentStmt;
  private finishStmt;
  private failStmt;
  private requeueStmt;
  private runningStmt;

  constructor(private db: DB) {
    this.insertStmt = db.prepare('INSERT INTO reports (owner_id, user_id, plugin_id, title, created, from_time, to_time, params) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    this.getStmt = db.prepare<[number, number], ReportRow>(`SELECT ${COLUMNS} FROM reports WHERE id = ? AND owner_id = ?`);
    this.listStmt = db.prepare<[number], ReportRow>(`SELECT ${COLUMNS} FROM reports WHERE owner_id = ? ORDER BY id`);
    this.bodyStmt = db.prepare<[number, number], Buffer>("SELECT body FROM reports WHERE id = ? AND owner_id = ? AND state = 'ready'").pluck();
    this.activeStmt = db.prepare<[number], number>("SELECT count(*) FROM reports WHERE user_id = ? AND state IN ('queued', 'running')").pluck();
    this.pendingStmt = db.prepare<[], number>("SELECT count(*) FROM reports WHERE state IN ('queued', 'running')").pluck();
    this.deleteStmt = db.prepare('DELETE FROM reports WHERE id = ? AND owner_id = ?');
    this.nextStmt = db.prepare<[number], ReportRow>(`SELECT ${COLUMNS} FROM reports WHERE state = 'queued' ORDER BY id LIMIT ?`);
    this.startStmt = db.prepare("UPDATE reports SET state = 'running', attempts = attempts + 1, percent = 0 WHERE id = ? AND state = 'queued'");
    // Only up: the threads sharing a report's trackers (src/reports/parts.ts) each write what they saw.
    this.percentStmt = db.prepare("UPDATE reports SET percent = ? WHERE id = ? AND state = 'running' AND percent < ?");
    this.finishStmt = db.prepare("UPDATE reports SET state = 'ready', percent = 100, body = ?, finished = ? WHERE id = ? AND state = 'running'");
    this.failStmt = db.prepare("UPDATE reports SET state = 'failed', percent = 100, error = ?, finished = ? WHERE id = ? AND state IN ('queued', 'running')");
    this.requeueStmt = db.prepare("UPDATE reports SET state = 'queued', percent = 0, attempts = attempts - ? WHERE id = ? AND state = 'running'");
    this.runningStmt = db.prepare<[], ReportRow>(`SELECT ${COLUMNS} FROM reports WHERE state = 'running' ORDER BY id`);
  }

  create(r: NewReport): number {
    return Number(this.insertStmt.run(r.ownerId, r.userId, r.pluginId, r.title, r.created, r.from, r.to, r.params).lastInsertRowid);
  }
  /** The owner's report (undefined for another owner's: not found). */
  get(ownerId: number, id: number): ReportRow | undefined {
    return this.getStmt.get(id, ownerId);
  }
  /** Any report, by id (the worker reads the row it was given). */
  byId(id: number): ReportRow | undefined {
    return this.db.prepare<[number], ReportRow>(`SELECT ${COLUMNS} FROM reports WHERE id = ?`).get(id);
  }
  list(ownerId: number): ReportRow[] {
    return this.listStmt.all(ownerId);
  }
  /** The gzip'd JSON body of a ready report. */
  body(ownerId: number, id: number): Buffer | undefined {
    return this.bodyStmt.get(id, ownerId) as Buffer | undefined;
  }
  /** Reports of this user still queued or running (the per-user parallel limit). */
  activeCount(userId: number): number {
    return this.activeStmt.get(userId) as number;
  }
  /** Reports of all users still queued or running (/metrics fsm_report_queue). */
  pendingCount(): number {
    return this.pendingStmt.get() as number;
  }
  delete(ownerId: number, id: number): boolean {
    return this.deleteStmt.run(id, ownerId).changes > 0;
  }
  /** The oldest queued reports, at most `n`. */
  nextQueued(n: number): ReportRow[] {
    return this.nextStmt.all(n);
  }
  /** Queued -> running (one more attempt); false when it is no longer queued (deleted meanwhile). */
  start(id: number): boolean {
    return this.startStmt.run(id).changes > 0;
  }
  setPercent(id: number, percent: number): void {
    this.percentStmt.run(percent, id, percent);
  }
  finish(id: number, body: Buffer, at: number): boolean {
    return this.finishStmt.run(body, at, id).changes > 0;
  }
  fail(id: number, error: string, at: number): void {
    this.failStmt.run(error, at, id);
  }
  /** Running -> queued; `uncount` takes back the attempt (a clean stop is no failed try). */
  requeue(id: number, uncount: boolean): void {
    this.requeueStmt.run(uncount ? 1 : 0, id);
  }
  /** Reports left running (by a crash, at start). */
  running(): ReportRow[] {
    return this.runningStmt.all();
  }
}

/** A stop (parking) or trip row as the report plugins read it. */
export interface SegmentRow {
  id: number;
  type: 'trip' | 'parking' | 'single_report';
  start_time: number;
  end_time: number;
  start_lat: number;
  start_lng: number;
  end_lat: number;
  end_lng: number;
  length_km: number;
  max_speed: number;
  avg_speed: number;
  open: number;
  start_address: string | null;
}

export interface VisitRow {
  geo_id: number;
  enter_time: number;
  exit_time: number | null;
}

/** One fix as the point and engine-hours reports read it. */
export interface ReportFixRow {
  time: number;
  lat: number | null;
  lng: number | null;
  alt: number | null;
  speed: number | null;
  satellites: number | null;
  flags: number;
  attrs: string | null;
}

/** A fix as the fuel report reads it: its attributes carry the level sensors. */
export interface FuelFixRow {
  time: number;
  lat: number | null;
  lng: number | null;
  speed: number | null;
  attrs: string;
}

/** A check-in as the check-in report reads it. */
export interface ReportCheckinRow {
  marker_time: number;
  lat: number;
  lng: number;
  address: string;
  comment: string | null;
  employee: string | null;
  form: string | null;
}

/** A task (or route checkpoint) as the task report reads it. */
export interface ReportTaskRow {
  id: number;
  label: string;
  address: string;
  lat: number | null;
  lng: number | null;
  from_time: number;
  to_time: number | null;
  status: string;
  arrival_date: number | null;
  stay_duration: number;
  completion_date: number | null;
}

/** A form attached to a task, as plugin 70 counts it. */
export interface ReportFormRow {
  template_id: number | null;
  label: string;
  template_label: string | null;
  submitted: number | null;
  from_time: number;
  to_time: number | null;
}

/** A work status change: the status from `changed` on (null: none); label null once the status is deleted. */
export interface ReportStatusRow {
  changed: number;
  status_id: number | null;
  label: string | null;
}

/** What the report plugins read of the telemetry core's results and the field service's records. */
export class ReportDataStore {
  private checkinsStmt;
  private tasksStmt;
  private statusBeforeStmt;
  private statusesStmt;
  private parkingsStmt;
  private visitsStmt;
  private fixesStmt;
  private stepsStmt;
  private formsStmt;
  private fuelStmt;
  private stepColumnsStmt;
  /** The columns `report_steps_collect` appends to while `stepColumns` runs (synchronous). */
  private collecting: StepColumns = emptySteps(0);
  private chunks: FixChunkStore;
  private snapshot: <T>(fn: () => T) => T;

  constructor(db: DB) {
    this.chunks = new FixChunkStore(db);
    this.snapshot = (fn) => db.transaction(fn)();
    this.checkinsStmt = db.prepare<[number, number, number], ReportCheckinRow>(
      `SELECT c.marker_time, c.lat, c.lng, c.address, c.comment,
         (SELECT TRIM(TRIM(e.first_name || ' ' || e.middle_name) || ' ' || e.last_name) FROM employees e WHERE e.id = c.employee_id) AS employee,
         (SELECT f.label FROM forms f WHERE f.id = c.form_id) AS form
       FROM checkins c WHERE c.tracker_id = ? AND c.marker_time BETWEEN ? AND ? ORDER BY c.marker_time, c.id`,
    );
    this.tasksStmt = db.prepare<[number, number, number], ReportTaskRow>(
      `SELECT id, label, address, lat, lng, from_time, to_time, status, arrival_date, stay_duration, completion_date FROM tasks
       WHERE tracker_id = ? AND type <> 'route' AND from_time BETWEEN ? AND ? ORDER BY from_time, id`,
    );
    const status = 'SELECT c.changed, c.new_status_id AS status_id, (SELECT s.label FROM statuses s WHERE s.id = c.new_status_id) AS label FROM status_changes c';
    this.statusBeforeStmt = db.prepare<[number, number], ReportStatusRow>(`${status} WHERE c.tracker_id = ? AND c.changed < ? ORDER BY c.changed DESC, c.id DESC LIMIT 1`);
    this.statusesStmt = db.prepare<[number, number, number], ReportStatusRow>(`${status} WHERE c.tracker_id = ? AND c.changed BETWEEN ? AND ? ORDER BY c.changed, c.id`);
    this.parkingsStmt = db.prepare<[number, number, number], SegmentRow>(
      `SELECT id, type, start_time, end_time, start_lat, start_lng, end_lat, end_lng, length_km, max_speed, avg_speed, open, start_address
       FROM tracks WHERE source_id = ? AND type = 'parking' AND gsm_lbs = 0 AND start_time <= ? AND end_time >= ? ORDER BY start_time, id`,
    );
    this.visitsStmt = db.prepare<[number, number, number], VisitRow>(
      `SELECT geo_id, enter_time, exit_time FROM visits WHERE source_id = ? AND kind = 'zone' AND enter_time <= ? AND (exit_time IS NULL OR exit_time >= ?) ORDER BY enter_time, geo_id`,
    );
    this.formsStmt = db.prepare<[number, number, number], ReportFormRow>(
      `SELECT f.template_id, f.label, (SELECT ft.label FROM form_templates ft WHERE ft.id = f.template_id) AS template_label, COALESCE(f.first_submitted, f.submitted) AS submitted, t.from_time, t.to_time
       FROM forms f JOIN tasks t ON t.id = f.task_id WHERE t.tracker_id = ? AND t.from_time BETWEEN ? AND ? ORDER BY t.from_time, f.id`,
    );
    this.fixesStmt = db.prepare<[number, number, number], ReportFixRow>('SELECT time, lat, lng, alt, speed, satellites, flags, attrs FROM fixes WHERE source_id = ? AND time BETWEEN ? AND ? ORDER BY time');
    this.stepsStmt = db.prepare<[number, number, number], { time: number; speed: number | null; flags: number; lat: number | null; lng: number | null }>(
      'SELECT time, speed, flags, lat, lng FROM fixes WHERE source_id = ? AND time BETWEEN ? AND ? ORDER BY time',
    );
    // One JS call per row appending to typed arrays: no row object (as track_points_collect does).
    // (@types/better-sqlite3 types `step` with one argument; SQLite passes one per SQL argument.)
    const step = (_: number, time: number, speed: number | null, flags: number, lat: number | null, lng: number | null): void => {
      const c = this.collecting;
      reserve(c, 1);
      c.time[c.n] = time;
      c.speed[c.n] = nan(speed);
      c.flags[c.n] = flags;
      c.lat[c.n] = nan(lat);
      c.lng[c.n++] = nan(lng);
    };
    db.aggregate<number>('report_steps_collect', { start: 0, step: step as unknown as (acc: number) => void });
    // A primary-key range scan: rows arrive in time order.
    this.stepColumnsStmt = db.prepare<[number, number, number]>('SELECT report_steps_collect(time, speed, flags, lat, lng) FROM fixes WHERE source_id = ? AND time BETWEEN ? AND ?').pluck();
    this.fuelStmt = db.prepare<[number, number, number], FuelFixRow>('SELECT time, lat, lng, speed, attrs FROM fixes WHERE source_id = ? AND time BETWEEN ? AND ? AND attrs IS NOT NULL ORDER BY time');
  }

  /** Check-ins of the tracker in [from, to], in time order, with the employee's name and the form's label. */
  checkins(trackerId: number, from: number, to: number): ReportCheckinRow[] {
    return this.checkinsStmt.all(trackerId, from, to);
  }
  /** Forms on the tracker's tasks (and checkpoints) starting in [from, to], with the template's current label; `submitted` is the first submission (a later correction is not lateness). */
  taskForms(trackerId: number, from: number, to: number): ReportFormRow[] {
    return this.formsStmt.all(trackerId, from, to);
  }
  /** Tasks and checkpoints of the tracker starting in [from, to], in time order. */
  tasks(trackerId: number, from: number, to: number): ReportTaskRow[] {
    return this.tasksStmt.all(trackerId, from, to);
  }
  /** The tracker's work status changes of [from, to], led by the last one before `from` (the status then). */
  statusChanges(trackerId: number, from: number, to: number): ReportStatusRow[] {
    const before = this.statusBeforeStmt.get(trackerId, from);
    return [...(before ? [before] : []), ...this.statusesStmt.all(trackerId, from, to)];
  }
  /** Parkings (GNSS) overlapping [from, to], in time order. */
  parkings(sourceId: number, from: number, to: number): SegmentRow[] {
    return this.parkingsStmt.all(sourceId, to, from);
  }
  /** Zone visits overlapping [from, to] (still open ones included), in time order. */
  zoneVisits(sourceId: number, from: number, to: number): VisitRow[] {
    return this.visitsStmt.all(sourceId, to, from);
  }
  /** Every fix of [from, to] with its attributes, in time order (the point report: a day at most). */
  fixes(sourceId: number, from: number, to: number): ReportFixRow[] {
    if (!this.chunks.anyIn(sourceId, from, to)) return this.fixesStmt.all(sourceId, from, to);
    return this.snapshot(() => this.chunks.readFixes(sourceId, from, to, REPORT_COLUMNS).map((r) => ({ time: r.time, lat: r.lat, lng: r.lng, alt: r.alt, speed: r.speed, satellites: r.satellites, flags: r.flags, attrs: r.attrs })));
  }
  /** Fixes of [from, to] with attributes (the fuel level is one), one at a time, in time order: the fuel report's only read of fixes. */
  fuelFixes(sourceId: number, from: number, to: number): IterableIterator<FuelFixRow> {
    if (!this.chunks.anyIn(sourceId, from, to)) return this.fuelStmt.iterate(sourceId, from, to);
    return fuelRowsOf(this.chunks.iterateFixes(sourceId, from, to, FUEL_COLUMNS));
  }
  /** Time, speed, flags and location of every fix of [from, to] as columns, in time order, read in one snapshot. */
  stepColumns(sourceId: number, from: number, to: number): StepColumns {
    return this.snapshot(() => {
      const out = emptySteps(4096);
      for (const p of this.chunks.pieces(sourceId, from, to)) {
        if (!p.chunk) {
          this.collecting = out;
          try {
            this.stepColumnsStmt.get(sourceId, p.from, p.to);
          } finally {
            this.collecting = emptySteps(0);
          }
          continue;
        }
        const c = this.chunks.decodeColumns(sourceId, p.chunk, STEP_COLUMNS);
        if (!c) continue;
        reserve(out, c.n);
        for (let i = 0; i < c.n; i++) {
          const t = c.time[i];
          if (t < p.from || t > p.to) continue;
          const k = out.n++;
          out.time[k] = t;
          out.speed[k] = c.cols.speed[i];
          out.flags[k] = c.cols.flags[i];
          out.lat[k] = c.cols.lat[i];
          out.lng[k] = c.cols.lng[i];
        }
      }
      return out;
    });
  }

  /** Time, speed, flags and location of every fix of [from, to], one at a time (long periods). */
  steps(sourceId: number, from: number, to: number): IterableIterator<{ time: number; speed: number | null; flags: number; lat: number | null; lng: number | null }> {
    if (!this.chunks.anyIn(sourceId, from, to)) return this.stepsStmt.iterate(sourceId, from, to);
    return stepsOf(this.chunks.iterateFixes(sourceId, from, to, STEP_COLUMNS));
  }
}
