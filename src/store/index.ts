/** The store: the only place with SQL. One object per open database file. */
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
import { TrackStore } from './tracks.ts';
import { StatusStore } from './statuses.ts';
import { MapLayerStore } from './map-layers.ts';

export interface Store {
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
  deviceState: DeviceStateStore;
  tracks: TrackStore;
  statuses: StatusStore;
  mapLayers: MapLayerStore;
  /** The counters authentication checks its caches against, read in one statement. */
  authVersions: AuthVersions;
  /** Run `fn` in one write transaction (nested calls become savepoints); rolled back when it throws. */
  transaction<T>(fn: () => T): T;
  /** Run `fn` over one read snapshot: every read inside sees the same committed state. */
  snapshot<T>(fn: () => T): T;
  /** Refresh the query planner's statistics (after a bulk load). */
  analyze(): void;
  close(): void;
}

export function openStore(file: string): Store {
  const db = openDatabase(file);
  return {
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
    mapLayers: new MapLayerStore(db),
    employees: new EmployeeStore(db),
    departments: new DepartmentStore(db),
    tasks: new TaskStore(db, new TagStore(db), new FieldStore(db)),
    authVersions: new AuthVersions(db),
    transaction: (fn) => db.transaction(fn)(),
    snapshot: (fn) => db.transaction(fn).deferred(),
    analyze: () => void db.exec('ANALYZE'),
    close: () => db.close(),
  };
}
