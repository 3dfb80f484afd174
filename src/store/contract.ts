/**
 * The asynchronous store contract (docs/store.md): what domain code, the API, the CLI and the
 * workers may ask of a database, whichever engine holds it. Every method answers a promise, so an
 * engine behind a network connection (PostgreSQL) fits the same interface as the embedded SQLite
 * file. Transactions hand a transaction-bound store to their callback.
 *
 * Each area's interface is the area's methods with their answers as promises. The SQLite engine's
 * area classes (src/store/*.ts) define the method set; `src/store/sqlite-async.ts` puts them behind
 * this contract, and every other engine implements the same `DataStore`.
 */
import type { AuthVersions } from './cache.ts';
import type { ChatStore } from './chat.ts';
import type { CheckinStore } from './checkins.ts';
import type { CompactionStore } from './compaction.ts';
import type { DepartmentStore } from './departments.ts';
import type { DeviceStateStore } from './device-state.ts';
import type { DeviceStore } from './devices.ts';
import type { EmployeeStore } from './employees.ts';
import type { EventStore } from './events.ts';
import type { FieldAppStore } from './field-app.ts';
import type { FieldStore } from './fields.ts';
import type { FileFactsStore } from './file-facts.ts';
import type { FileStore } from './files.ts';
import type { FormTemplateStore } from './form-templates.ts';
import type { FormStore } from './forms.ts';
import type { GeoCacheStore } from './geocache.ts';
import type { MapLayerStore } from './map-layers.ts';
import type { OpsStore } from './ops.ts';
import type { PlaceStore } from './places.ts';
import type { ReportScheduleStore } from './report-schedules.ts';
import type { ReportDataStore, ReportStore } from './reports.ts';
import type { RetentionStore } from './retention.ts';
import type { RetranslatorStore } from './retranslators.ts';
import type { SessionStore } from './sessions.ts';
import type { StatusStore } from './statuses.ts';
import type { TagStore } from './tags.ts';
import type { TariffStore } from './tariffs.ts';
import type { TaskScheduleStore } from './task-schedules.ts';
import type { TaskStore } from './tasks.ts';
import type { TelemetryStore } from './telemetry.ts';
import type { TrackerStore } from './trackers.ts';
import type { TrackStore } from './tracks.ts';
import type { UploadStore } from './uploads.ts';
import type { UserStore } from './users.ts';
import type { ZoneStore } from './zones.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Method = (...args: any[]) => any;

/**
 * Members of an area class that are not part of the contract: their own transactions (a callback
 * run inside: use `DataStore.transaction`) and the connection's end (`DataStore.close`).
 */
export const ENGINE_ONLY = ['transaction', 'atomically', 'readSnapshot', 'close'] as const;
type EngineOnly = (typeof ENGINE_ONLY)[number];

/**
 * One area's contract: every method of the area, answering a promise of what it answers. Methods
 * answering a lazy iterator over a live statement (the report reads of a long fix range) stay on
 * the engine's narrow read path and are not part of it.
 */
export type Area<T> = {
  [K in keyof T as K extends EngineOnly ? never : T[K] extends (...a: never[]) => Iterator<unknown> ? never : T[K] extends Method ? K : never]: T[K] extends (...a: infer A) => infer R ? (...a: A) => Promise<Awaited<R>> : never;
};

/** The SQLite engine's class of each area: its methods are the area's contract. */
export interface AreaClasses {
  users: UserStore;
  sessions: SessionStore;
  tariffs: TariffStore;
  trackers: TrackerStore;
  tags: TagStore;
  telemetry: TelemetryStore;
  fields: FieldStore;
  geocache: GeoCacheStore;
  devices: DeviceStore;
  chat: ChatStore;
  places: PlaceStore;
  zones: ZoneStore;
  employees: EmployeeStore;
  departments: DepartmentStore;
  tasks: TaskStore;
  taskSchedules: TaskScheduleStore;
  deviceState: DeviceStateStore;
  tracks: TrackStore;
  statuses: StatusStore;
  /** The field app's codes, tokens and task feed (docs/field-app.md). */
  fieldApp: FieldAppStore;
  formTemplates: FormTemplateStore;
  forms: FormStore;
  /** What forms need of the files table (src/store/file-facts.ts). */
  fileFacts: FileFactsStore;
  files: FileStore;
  checkins: CheckinStore;
  retranslators: RetranslatorStore;
  mapLayers: MapLayerStore;
  /** What /metrics reads on a scrape (src/store/ops.ts). */
  ops: OpsStore;
  /** Tracker reports and what their plugins read (docs/reports.md). */
  reports: ReportStore;
  reportData: ReportDataStore;
  /** Retention's deletes in small steps (docs/operations.md#retention). */
  retention: RetentionStore;
  /** Compaction of old fixes into chunks, in small steps (docs/storage.md). */
  compaction: CompactionStore;
  /** The event log (docs/events.md). */
  events: EventStore;
  reportSchedules: ReportScheduleStore;
  /** Uploads written in steps and shown at once (src/store/uploads.ts). */
  uploads: UploadStore;
  /** The counters authentication checks its caches against, read in one statement. */
  authVersions: AuthVersions;
}

/** The areas: users, sessions, trackers, tasks, forms, files, reports, retranslators, events, ... */
export type AreaName = keyof AreaClasses;

export type Areas = { [K in AreaName]: Area<AreaClasses[K]> };

/** The whole contract: the areas and what works across them. */
export interface DataStore extends Areas {
  /**
   * Runs `fn` in one write transaction with a store bound to it: everything `fn` does through `tx`
   * commits together when its promise resolves, and nothing of it when it rejects (the rejection is
   * passed on). A transaction inside another (`tx.transaction`) is a savepoint: its failure undoes
   * only its own writes. While it runs, calls made outside it wait (SQLite) or see the state before
   * it (PostgreSQL); never half of it. Keep it short and free of outside I/O.
   */
  transaction<T>(fn: (tx: DataStore) => Promise<T>): Promise<T>;
  /** Runs `fn` over one read snapshot: every read through `tx` sees the same committed state. */
  snapshot<T>(fn: (tx: DataStore) => Promise<T>): Promise<T>;
  /** Refresh the query planner's statistics (after a bulk load). */
  analyze(): Promise<void>;
  /** Close the connection(s); calls after it fail. */
  close(): Promise<void>;
}
