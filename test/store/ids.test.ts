/**
 * Ids are never handed out twice (issue 23, migration 040; docs/storage.md#ids). Every entity table
 * has AUTOINCREMENT; a database populated before migration 040 keeps its rows, ids, indexes,
 * triggers, search index and foreign keys through it, and its sequences start past the largest id
 * present and past the ids of deleted entities that surviving rows still name.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Database from '../../src/store/sqlite.ts';
import { migrate, openDatabase, type DB } from '../../src/store/db.ts';
import { ENTITY_TABLES } from '../../src/store/rebuild.ts';

const dir = mkdtempSync(join(tmpdir(), 'fsm-ids-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Tables whose primary key is one INTEGER `id` (the full-text indexes' own tables aside). */
function idTables(db: DB): Array<{ name: string; sql: string }> {
  const tables = db.prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE '%\\_fts\\_%' ESCAPE '\\'").all();
  return tables.filter((t) => {
    const pk = db.prepare<[string], { name: string; type: string }>('SELECT name, type FROM pragma_table_info(?) WHERE pk > 0').all(t.name);
    return pk.length === 1 && pk[0].name === 'id' && pk[0].type.toUpperCase() === 'INTEGER';
  });
}

describe('every entity table', () => {
  it('has AUTOINCREMENT (a new table with ids must have it too)', () => {
    const db = openDatabase(':memory:');
    try {
      const tables = idTables(db);
      expect(tables.filter((t) => !/\bid\s+INTEGER\s+PRIMARY\s+KEY\s+AUTOINCREMENT\b/i.test(t.sql)).map((t) => t.name)).toEqual([]);
      expect(tables.map((t) => t.name).sort()).toEqual([...ENTITY_TABLES, 'reports', 'uploads'].sort());
    } finally {
      db.close();
    }
  });
});

/** A database at migration 039 with users, tags, places, zones, tasks and visits, then migrated. */
function populated() {
  const file = join(dir, 'old.sqlite');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  migrate(db, { until: 39 });
  const now = Date.now();
  const run = (sql: string, ...params: unknown[]) => Number(db.prepare(sql).run(...params).lastInsertRowid);
  const user = run("INSERT INTO users (dealer_id, tariff_id, login, login_key, password_hash, creation_date) VALUES (1, 1, 'old@example.com', 'old@example.com', 'x', ?)", now);
  const sub = run("INSERT INTO users (parent_id, dealer_id, tariff_id, login, login_key, password_hash, creation_date) VALUES (?, 1, 1, 'sub', 'sub', 'x', ?)", user, now);
  const tag = run("INSERT INTO tags (user_id, name) VALUES (?, 'depots')", user);
  const place = (label: string) => run('INSERT INTO places (user_id, label, lat, lng, radius) VALUES (?, ?, 54.6, 25.2, 100)', user, label);
  const places = [place('Depot north'), place('Depot south'), place('Shop')];
  run("INSERT INTO entity_tags (entity_type, entity_id, tag_id) VALUES ('place', ?, ?)", places[0], tag);
  const zone = (label: string) => run("INSERT INTO zones (user_id, type, label) VALUES (?, 'polygon', ?)", user, label);
  const zones = [zone('Yard'), zone('Port')];
  for (const z of zones) for (let i = 0; i < 3; i++) run('INSERT INTO zone_points (zone_id, ordinal, lat, lng) VALUES (?, ?, ?, 25)', z, i, 54 + i / 10);
  const task = (label: string, routeId: number | null = null, type = 'task') =>
    run('INSERT INTO tasks (user_id, type, route_id, label, status_change_date, creation_date) VALUES (?, ?, ?, ?, ?, ?)', user, type, routeId, label, now, now);
  const route = task('Round', null, 'route');
  const tasks = [task('Boiler'), task('A', route, 'checkpoint'), task('B', route, 'checkpoint'), task('Pump')];
  // The newest place and zone were deleted; visits of them survive (a report still shows them).
  const source = run("INSERT INTO sources (device_id, protocol, tariff_id, creation_date) VALUES ('350000000000001', 'teltonika', 1, ?)", now);
  run("INSERT INTO visits (source_id, kind, geo_id, enter_time) VALUES (?, 'place', ?, ?)", source, places[2], now);
  run("INSERT INTO visits (source_id, kind, geo_id, enter_time) VALUES (?, 'zone', ?, ?)", source, zones[1], now);
  run('DELETE FROM places WHERE id = ?', places[2]);
  run('DELETE FROM zones WHERE id = ?', zones[1]);

  // Sorted as text: some of these tables have no rowid.
  const dump = (t: string, cols = '*') => (db.prepare(`SELECT ${cols} FROM ${t}`).all() as unknown[]).map((r) => JSON.stringify(r)).sort();
  const placeCols = 'id, user_id, label, description, lat, lng, address, radius, external_id, icon_id, avatar_file_name';
  const before = {
    users: dump('users'),
    places: dump('places', placeCols),
    zones: dump('zones', 'id, user_id, type, label, address, color, radius, center_lat, center_lng'),
    zonePoints: dump('zone_points'),
    tasks: dump('tasks'),
    entityTags: dump('entity_tags'),
    placeCounts: dump('place_counts'),
    taskCounts: dump('task_counts'),
    visits: dump('visits'),
    schema: db.prepare("SELECT type, name, tbl_name FROM sqlite_schema WHERE type IN ('index', 'trigger') ORDER BY name").all() as Array<{ name: string }>,
  };
  const search = (match: string) => db.prepare('SELECT rowid FROM places_fts WHERE places_fts MATCH ? ORDER BY rowid').pluck().all(match);
  const foundBefore = search('depot');
  migrate(db);
  return { db, run, user, sub, places, zones, tasks, route, place, zone, task, dump, placeCols, before, search, foundBefore };

}

describe('migration 040 on a database populated before it', () => {
  // Cleaned up also when populating fails.
  const c = (() => {
    try {
      return populated();
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  })();
  const { db, run, user, sub, places, zones, tasks, route, place, zone, task, dump, placeCols, before, search, foundBefore } = c;
  afterAll(() => db.close());

  it('keeps every row and id, the counts, the search index, indexes and triggers', () => {
    expect(dump('users')).toEqual(before.users);
    expect(dump('places', placeCols)).toEqual(before.places);
    expect(dump('zones', 'id, user_id, type, label, address, color, radius, center_lat, center_lng')).toEqual(before.zones);
    expect(dump('zone_points')).toEqual(before.zonePoints);
    expect(dump('tasks')).toEqual(before.tasks);
    expect(dump('entity_tags')).toEqual(before.entityTags);
    expect(dump('place_counts')).toEqual(before.placeCounts);
    expect(dump('task_counts')).toEqual(before.taskCounts);
    expect(dump('visits')).toEqual(before.visits);
    expect(search('depot')).toEqual(foundBefore);
    expect(foundBefore).toHaveLength(2);
    const after = new Set((db.prepare("SELECT name FROM sqlite_schema WHERE type IN ('index', 'trigger')").all() as Array<{ name: string }>).map((r) => r.name));
    expect(before.schema.filter((o) => !after.has(o.name))).toEqual([]);
    expect(db.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
  });

  it('the foreign keys still hold and act: deleting a route deletes its checkpoints; a sub-user keeps its master', () => {
    expect(() => run('INSERT INTO tasks (user_id, label, status_change_date, creation_date) VALUES (999, ?, 0, 0)', 'nobody')).toThrow(/FOREIGN KEY/);
    expect(() => run('DELETE FROM users WHERE id = ?', user)).toThrow(/FOREIGN KEY/);
    expect(db.prepare('SELECT parent_id FROM users WHERE id = ?').pluck().get(sub)).toBe(user);
    run('DELETE FROM tasks WHERE id = ?', route);
    expect(db.prepare('SELECT COUNT(*) FROM tasks WHERE id IN (?, ?)').pluck().get(tasks[1], tasks[2])).toBe(0);
  });

  it('new ids are past the largest present and past deleted ids that surviving rows name', () => {
    // Place 3 and zone 2 were deleted before the migration, but visits name them.
    expect(place('New place')).toBe(places[2] + 1);
    expect(zone('New zone')).toBe(zones[1] + 1);
    const t = task('New task');
    expect(t).toBe(tasks[3] + 1);
    // From now on, deleting the newest never gives its id back.
    run('DELETE FROM tasks WHERE id = ?', t);
    expect(task('Another')).toBe(t + 1);
    // The place counts and the search index follow the new rows (their triggers came through).
    expect(db.prepare('SELECT n FROM place_counts WHERE user_id = ?').pluck().get(user)).toBe(3);
    expect(search('new')).toEqual([(BigInt(user) << 36n) | BigInt(places[2] + 1)].map(Number));
  });
});
