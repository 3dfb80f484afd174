/**
 * Rows an upload writes are seen by nobody until it commits (issue 23; docs/places-zones.md#uploads-all-or-nothing):
 * not by reads, lists, counts, the search index, the external-id look-up, updates, deletes or the
 * geofence readers; its commit shows them all with their counts and search entries; a discard
 * (a failed upload, or a crash cleaned up at start) leaves nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.ts';
import { loadGeoRows } from '../../src/store/geo.ts';
import { openSql, type DB } from '../helpers/sql.ts';
import { discardUnfinishedUploads } from '../../src/imports/staging.ts';

const dir = mkdtempSync(join(tmpdir(), 'fsm-uploads-'));
let store: Store;
let sql: DB;
let user: number;

beforeAll(() => {
  store = openStore(join(dir, 'db.sqlite'));
  sql = openSql(join(dir, 'db.sqlite'));
  user = Number(sql.prepare("INSERT INTO users (dealer_id, tariff_id, login, login_key, password_hash, creation_date) VALUES (1, 1, 'u', 'u', 'x', 0)").run().lastInsertRowid);
});
afterAll(() => {
  try {
    sql?.close();
    store?.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const place = (label: string) => ({ label, description: '', lat: 54.6, lng: 25.2, address: 'Main street', radius: 100, external_id: `x-${label}` });
const zone = (label: string) => ({ zone: { type: 'polygon' as const, label, address: '', color: '27A9E3', radius: null, center: null }, points: [0, 1, 2].map((i) => ({ lat: 54 + i / 10, lng: 25, node: false })) });
const list = (filter?: string) => store.places.list(user, { filter, timeZone: 'UTC', orderBy: 'id', ascending: true, limit: 100, offset: 0 });
const versions = () => sql.prepare("SELECT name, value FROM versions WHERE name IN ('geo', 'geo_areas') ORDER BY name").all();
const geoIds = () => {
  const g = loadGeoRows(sql);
  return { places: g.places.map((p) => p.id), zones: g.zones.map((z) => z.id), zonePoints: new Set(g.zonePoints.map((p) => p.zone_id)).size };
};

describe('an upload before its commit', () => {
  it('is invisible to every read; its commit shows it whole, counted, searchable and in the geofences', () => {
    const kept = store.places.create(user, place('Kept'));
    const upload = store.uploads.begin(user, 'place', 0);
    const ids = [...store.places.stage(upload, [place('Depot A'), place('Depot B')]), ...store.places.stage(upload, [place('Depot C')])];
    const zoneIds = store.zones.stage(upload, [zone('Yard')]);
    expect(ids.every((id) => id > kept)).toBe(true);
    for (const id of ids) expect(store.places.get(user, id)).toBeUndefined();
    expect(store.places.count(user)).toBe(1);
    expect(list()).toMatchObject({ count: 1, rows: [{ id: kept }] });
    expect(list('depot')).toEqual({ count: 0, rows: [] });
    expect(store.places.byExternalId(user, 'x-Depot A')).toEqual([]);
    expect(store.places.update(user, ids[0], place('Changed'))).toBe(false);
    expect(store.places.delete(user, ids[0])).toBe(false);
    expect(store.zones.list(user)).toEqual([]);
    expect(store.zones.count(user)).toBe(0);
    expect(geoIds()).toEqual({ places: [kept], zones: [], zonePoints: 0 });

    const before = versions() as Array<{ value: number }>;
    expect(store.transaction(() => store.uploads.commit(upload, user))).toBe(4);
    expect(store.places.count(user)).toBe(4);
    expect(list('depot')).toMatchObject({ count: 3, rows: ids.map((id) => ({ id, user_id: user, upload_id: null })) });
    expect(store.places.byExternalId(user, 'x-Depot B').map((p) => p.id)).toEqual([ids[1]]);
    expect(store.zones.list(user).map((z) => z.id)).toEqual(zoneIds);
    expect(geoIds()).toEqual({ places: [kept, ...ids], zones: zoneIds, zonePoints: 1 });
    // The geofence indexes rebuild: their versions moved.
    expect((versions() as Array<{ value: number }>).map((v, i) => v.value > before[i].value)).toEqual([true, true]);
    expect(store.uploads.pending()).toBe(0);
    // Shown rows are ordinary rows: searchable after an update, gone after a delete.
    expect(store.places.update(user, ids[0], place('Harbour'))).toBe(true);
    expect(list('harbour').count).toBe(1);
    expect(store.places.delete(user, ids[0])).toBe(true);
    expect(list('depot').count).toBe(2);
    expect(store.places.count(user)).toBe(3);
  });

  it("its updates of existing places are made by its last transaction, search entries rewritten; a failed one changes nothing", () => {
    const x = store.places.create(user, place('Alpha'));
    const count = store.places.count(user);
    const ok = store.uploads.begin(user, 'place', 0);
    const [fresh] = store.places.stage(ok, [place('Gamma')]);
    store.transaction(() => {
      expect(store.places.changeInUpload(ok, user, x, place('Omega'))).toBe(true);
      store.uploads.commit(ok, user);
    });
    expect(list('alpha').count).toBe(0);
    expect(list('omega')).toMatchObject({ count: 1, rows: [{ id: x, label: 'Omega', upload_id: null }] });
    expect(list('gamma')).toMatchObject({ count: 1, rows: [{ id: fresh }] });
    expect(store.places.count(user)).toBe(count + 1);
    // One search entry a place: nothing left over, nothing missing.
    expect(sql.prepare('SELECT COUNT(*) FROM places_fts').pluck().get()).toBe(sql.prepare('SELECT COUNT(*) FROM places WHERE user_id IS NOT NULL').pluck().get());

    const failing = store.uploads.begin(user, 'place', 0);
    store.places.stage(failing, [place('Delta')]);
    expect(() =>
      store.transaction(() => {
        store.places.changeInUpload(failing, user, x, place('Sigma'));
        store.uploads.commit(failing, user);
        throw new Error('the quota, checked at the commit');
      }),
    ).toThrow('quota');
    // What the upload staged goes as staging.ts discards a failed upload.
    while (store.uploads.discard(failing, 500, 50));
    expect(store.uploads.pending()).toBe(0);
    expect(list('sigma').count + list('delta').count).toBe(0);
    expect(list('omega').rows.map((r) => r.id)).toEqual([x]);
    expect(store.places.count(user)).toBe(count + 1);
  });

  it('a discard (a failed upload, or what a crash left, at start) leaves nothing, and its ids are not handed out again', async () => {
    const count = store.places.count(user);
    const a = store.uploads.begin(user, 'place', 0);
    const b = store.uploads.begin(user, 'zone', 0);
    const placeIds = store.places.stage(a, Array.from({ length: 1200 }, (_, i) => place(`P${i}`)));
    const zoneIds = store.zones.stage(b, Array.from({ length: 120 }, (_, i) => zone(`Z${i}`)));
    expect(store.uploads.pending()).toBe(2);
    await discardUnfinishedUploads(store);
    expect(sql.prepare('SELECT (SELECT COUNT(*) FROM places WHERE user_id IS NULL) + (SELECT COUNT(*) FROM zones WHERE user_id IS NULL) + (SELECT COUNT(*) FROM zone_points WHERE zone_id NOT IN (SELECT id FROM zones))').pluck().get()).toBe(0);
    expect(store.uploads.pending()).toBe(0);
    expect(store.places.count(user)).toBe(count);
    expect(list().count).toBe(count);
    expect(store.places.create(user, place('After'))).toBeGreaterThan(placeIds.at(-1)!);
    expect(store.zones.createMany(user, [zone('After')])[0]).toBeGreaterThan(zoneIds.at(-1)!);
  });
});
