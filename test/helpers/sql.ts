/**
 * A test's own connection to a store's SQLite file, for fixtures and inspection that no store
 * method offers (the store does not hand out its handle). Close it with the test.
 */
import { openDatabase, type DB } from '../../src/store/db.ts';

export type { DB };

export function openSql(file: string): DB {
  return openDatabase(file);
}
