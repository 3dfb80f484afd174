/** The store: the only place with SQL. One object per open database file. */
import { openDatabase, type DB } from './db.ts';
import { SessionStore } from './sessions.ts';
import { FieldStore } from './fields.ts';
import { TagStore } from './tags.ts';
import { TariffStore } from './tariffs.ts';
import { TrackerStore } from './trackers.ts';
import { UserStore } from './users.ts';

export interface Store {
  db: DB;
  users: UserStore;
  sessions: SessionStore;
  tariffs: TariffStore;
  trackers: TrackerStore;
  tags: TagStore;
  fields: FieldStore;
  close(): void;
}

export function openStore(file: string): Store {
  const db = openDatabase(file);
  return {
    db,
    users: new UserStore(db),
    sessions: new SessionStore(db),
    tariffs: new TariffStore(db),
    trackers: new TrackerStore(db),
    tags: new TagStore(db),
    fields: new FieldStore(db),
    close: () => db.close(),
  };
}
