/** The store: the only place with SQL. One object per open database file. */
import { existsSync, renameSync, rmSync } from 'node:fs';
import Database from './sqlite.ts';
import { openDatabase, type DB } from './db.ts';
import { AuthVersions } from './cache.ts';
import { SessionStore } from './sessions.ts';
import { ChatStore } from './chat.ts';
import { DeviceStore } from './devices.ts';
import { FieldStore } from './fields.ts';
import { TagStore } from './tags.ts';
import { TelemetryStore } from './telemetry.ts';
import { TariffStore } from './tariffs.ts';
import { TrackerStore } from './trackers.ts';
import { UserStore } from './users.ts';
import { GeoCacheStore } from './geocache.ts';
import { PlaceStore } from './places.ts';
import { ZoneStore } from './zones.ts';
import { DeviceStateStore } from './device-state.ts';
import { EmployeeStore } from './employees.ts';
import { DepartmentStore } from './departments.ts';
import { TaskStore } from './tasks.ts';
import { TaskScheduleStore } from './task-schedules.ts';
import { ReportScheduleStore } from './report-schedules.ts';
import { TrackStore } from './tracks.ts';
import { StatusStore } from './statuses.ts';
import { FieldAppStore } from './field-app.ts';
import { FormTemplateStore } from './form-templates.ts';
import { FormStore } from './forms.ts';
import { FileFactsStore } from './file-facts.ts';
import { FileStore } from './files.ts';
import { CheckinStore } from './checkins.ts';
import { RetranslatorStore } from './retranslators.ts';
import { MapLayerStore } from './map-layers.ts';
import { OpsStore } from './ops.ts';
import { ReportDataStore, ReportStore } from './reports.ts';
import { RetentionStore } from './retention.ts';
import { CompactionStore } from './compaction.ts';
import { EventStore } from './events.ts';
import { UploadStore } from './uploads.ts';
import type { AreaClasses, DataStore } from './contract.ts';
import { sqliteDataStore } from './sqlite-async.ts';

/** The SQLite engine's areas (their list: `AreaClasses` in contract.ts) and what works across them. */
export interface Store extends AreaClasses {
  /** Run `fn` in one write transaction (nested calls become savepoints); rolled back when it throws. */
  transaction<T>(fn: () => T): T;
  /** Run `fn` over one read snapshot: every read inside sees the same committed state. */
  snapshot<T>(fn: () => T): T;
  /** Refresh the query planner's statistics (after a bulk load). */
  analyze(): void;
  /**
   * Copy the live database to `file` with SQLite's online backup, as it was when the copy began,
   * while others keep writing; `onProgress(pagesCopied, totalPages)` after each step. The copy is
   * written beside `file` and renamed when complete and checked, so `file` is never half a database.
   */
  backup(file: string, onProgress?: (copied: number, total: number) => void): Promise<void>;
  close(): void;
  /**
   * The asynchronous contract over this store (src/store/contract.ts, docs/store.md): what code
   * outside the store moves to, area by area, so that another engine can take the store's place.
   */
  data: DataStore;
}

/** Pages copied per backup step: small steps keep the progress moving on large files. */
const BACKUP_STEP_PAGES = 4096;

async function backupDatabase(db: DB, file: string, onProgress?: (copied: number, total: number) => void): Promise<void> {
  if (existsSync(file)) throw new Error(`${file} exists: name a new file`);
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  // One read transaction over the whole copy: in WAL mode writers go on, and the copy is the
  // snapshot taken here. Without it every commit of the running server restarts the copy.
  db.exec('BEGIN');
  try {
    db.prepare('SELECT 1 FROM sqlite_schema LIMIT 1').get();
    let total = 0;
    await db.backup(partial, {
      progress({ totalPages, remainingPages }) {
        total = totalPages;
        onProgress?.(totalPages - remainingPages, totalPages);
        return BACKUP_STEP_PAGES;
      },
    });
    onProgress?.(total, total);
  } catch (e) {
    rmSync(partial, { force: true });
    throw e;
  } finally {
    db.exec('COMMIT');
  }
  const copy = new Database(partial);
  try {
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(`the copy fails its check: ${String(check)}`);
    copy.pragma('journal_mode = WAL'); // as the server opens it
  } finally {
    copy.close();
  }
  renameSync(partial, file);
}

export function openStore(file: string): Store {
  const db = openDatabase(file);
  const store: Omit<Store, 'data'> & { data?: DataStore } = {
    users: new UserStore(db),
    sessions: new SessionStore(db),
    tariffs: new TariffStore(db),
    trackers: new TrackerStore(db),
    tags: new TagStore(db),
    telemetry: new TelemetryStore(db),
    fields: new FieldStore(db),
    geocache: new GeoCacheStore(db),
    devices: new DeviceStore(db),
    chat: new ChatStore(db),
    places: new PlaceStore(db, new TagStore(db), new FieldStore(db)),
    zones: new ZoneStore(db, new TagStore(db)),
    deviceState: new DeviceStateStore(db),
    tracks: new TrackStore(db),
    statuses: new StatusStore(db),
    fieldApp: new FieldAppStore(db),
    formTemplates: new FormTemplateStore(db),
    forms: new FormStore(db),
    fileFacts: new FileFactsStore(db),
    files: new FileStore(db),
    checkins: new CheckinStore(db),
    retranslators: new RetranslatorStore(db),
    mapLayers: new MapLayerStore(db),
    ops: new OpsStore(db),
    reports: new ReportStore(db),
    reportData: new ReportDataStore(db),
    retention: new RetentionStore(db),
    compaction: new CompactionStore(db),
    events: new EventStore(db),
    reportSchedules: new ReportScheduleStore(db),
    uploads: new UploadStore(db),
    employees: new EmployeeStore(db),
    departments: new DepartmentStore(db),
    tasks: new TaskStore(db, new TagStore(db), new FieldStore(db)),
    taskSchedules: new TaskScheduleStore(db),
    authVersions: new AuthVersions(db),
    // IMMEDIATE: the write lock is taken (waiting up to busy_timeout) before the first read, so a
    // transaction never fails with SQLITE_BUSY when another connection committed after it read.
    transaction: (fn) => db.transaction(fn).immediate(),
    snapshot: (fn) => db.transaction(fn).deferred(),
    analyze: () => void db.exec('ANALYZE'),
    backup: (file, onProgress) => backupDatabase(db, file, onProgress),
    close: () => db.close(),
  };
  store.data = sqliteDataStore(store as Store, db, () => db.close());
  return store as Store;
}
