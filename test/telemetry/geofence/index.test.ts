/**
 * The geofence index against brute force (design.md "Index against a reference"; issue 5):
 * bulk load equals incremental insert, index hits plus exact test equal checking every geofence.
 */
import { describe, expect, it } from 'vitest';
import { GeoIndex, type Geofence, type GeoRef } from '../../../src/telemetry/geofence/index.ts';
import { contains, edgeDistance } from '../../../src/telemetry/geofence/shapes.ts';
import { openDatabase } from '../../../src/store/db.ts';
import { loadGeoRows } from '../../../src/store/geo.ts';
import { randomFences, rng } from './helpers.ts';

const sorted = (xs: GeoRef[]) => xs.map((x) => `${x.kind}:${x.id}`).sort();

function bruteForce(fences: Geofence[], owners: number[], lat: number, lng: number, trackerId?: number): string[] {
  const hits = fences.filter((f) => owners.includes(f.ownerId) && (f.kind !== 'task' || trackerId === undefined || f.trackerId === trackerId) && contains(f.shape, lat, lng));
  return sorted(hits);
}

describe.each([
  ['Paris', { lat: 48.85, lng: 2.35 }],
  ['Tromsø (high latitude)', { lat: 69.65, lng: 18.96 }],
])('GeoIndex against brute force around %s', (_, CITY) => {
  const rand = rng(11);
  const fences = randomFences(rand, 2000, CITY.lat, CITY.lng, 0.5);
  const points = Array.from({ length: 3000 }, () => ({ lat: CITY.lat + (rand() - 0.5) * 0.6, lng: CITY.lng + (rand() - 0.5) * 0.6 }));
  const bulk = GeoIndex.from(fences);
  const incremental = new GeoIndex();
  for (const f of fences) incremental.insert(f);
  const ownerSets = [[1], [2, 3], [1, 2, 3], [9]];

  it('bulk load and incremental insert answer the same, and equal checking every geofence', () => {
    let total = 0;
    for (const [i, p] of points.entries()) {
      const owners = ownerSets[i % ownerSets.length];
      const expected = bruteForce(fences, owners, p.lat, p.lng);
      expect(sorted(bulk.query(owners, p.lat, p.lng))).toEqual(expected);
      expect(sorted(incremental.query(owners, p.lat, p.lng))).toEqual(expected);
      total += expected.length;
    }
    expect(total).toBeGreaterThan(1000); // the points do hit geofences
    expect(bulk.size).toBe(fences.length);
  });

  it('task zones only for the tracker they are assigned to, when one is given', () => {
    for (const p of points.slice(0, 1000)) {
      expect(sorted(bulk.query([1, 2, 3], p.lat, p.lng, 7))).toEqual(bruteForce(fences, [1, 2, 3], p.lat, p.lng, 7));
    }
  });

  it('probe: everything inside or within the margin, with the distance to the edge', () => {
    let near = 0;
    for (const [i, p] of points.slice(0, 2000).entries()) {
      const margin = [0, 20, 150, 1000][i % 4];
      const expected = fences
        .filter((f) => f.ownerId !== 3)
        .map((f) => ({ kind: f.kind, id: f.id, ...edgeDistance(f.shape, p.lat, p.lng) }))
        .filter((h) => h.inside || h.distance <= margin)
        .sort((a, b) => a.kind.localeCompare(b.kind) || a.id - b.id);
      const got = bulk.probe([1, 2], p.lat, p.lng, margin).sort((a, b) => a.kind.localeCompare(b.kind) || a.id - b.id);
      expect(got).toEqual(expected);
      near += got.filter((h) => !h.inside).length;
    }
    expect(near).toBeGreaterThan(100); // outside but within the margin: the expanded search box is exercised
  });

  it('removal and replacement keep it equal to brute force over what is left', () => {
    const index = GeoIndex.from(fences);
    const left = new Map(fences.map((f) => [`${f.kind}:${f.id}`, f]));
    for (const f of fences) {
      if (f.id % 3 === 0) {
        expect(index.remove(f.kind, f.id)).toBe(true);
        left.delete(`${f.kind}:${f.id}`);
      } else if (f.id % 3 === 1 && f.shape.type === 'circle') {
        const moved: Geofence = { ...f, shape: { ...f.shape, center: { lat: f.shape.center.lat + 0.01, lng: f.shape.center.lng } } };
        index.insert(moved);
        left.set(`${f.kind}:${f.id}`, moved);
      }
    }
    expect(index.remove('zone', -1)).toBe(false);
    expect(index.size).toBe(left.size);
    for (const p of points.slice(0, 1500)) expect(sorted(index.query([1, 2, 3], p.lat, p.lng))).toEqual(bruteForce([...left.values()], [1, 2, 3], p.lat, p.lng));
  });

  it('the same id under two kinds is two geofences; a repeated one in a bulk load: the last wins', () => {
    const shape = { type: 'circle' as const, center: CITY, radius: 100 };
    const index = GeoIndex.from([
      { kind: 'zone', id: 1, ownerId: 1, shape: { ...shape, radius: 1 } },
      { kind: 'place', id: 1, ownerId: 1, shape },
      { kind: 'zone', id: 1, ownerId: 1, shape },
    ]);
    expect(index.size).toBe(2);
    expect(sorted(index.query([1], CITY.lat + 0.0005, CITY.lng))).toEqual(['place:1', 'zone:1']);
  });
});

describe('GeoIndex.fromRows and loadGeoRows', () => {
  it('builds circles, polygons (points by ordinal), sausages, places and task zones; skips what has no shape', () => {
    const index = GeoIndex.fromRows(
      [
        { id: 1, user_id: 5, type: 'circle', radius: 100, center_lat: 10, center_lng: 10 },
        { id: 2, user_id: 5, type: 'polygon', radius: null, center_lat: null, center_lng: null },
        { id: 3, user_id: 5, type: 'sausage', radius: 50, center_lat: null, center_lng: null },
        { id: 4, user_id: 5, type: 'circle', radius: null, center_lat: null, center_lng: null },
        { id: 6, user_id: 5, type: 'polygon', radius: null, center_lat: null, center_lng: null },
      ],
      [
        // Shuffled on purpose: a square only when read by ordinal.
        { zone_id: 2, ordinal: 2, lat: 21, lng: 21 },
        { zone_id: 2, ordinal: 0, lat: 20, lng: 20 },
        { zone_id: 3, ordinal: 1, lat: 30, lng: 30.01 },
        { zone_id: 2, ordinal: 3, lat: 21, lng: 20 },
        { zone_id: 2, ordinal: 1, lat: 20, lng: 21 },
        { zone_id: 3, ordinal: 0, lat: 30, lng: 30 },
        { zone_id: 6, ordinal: 0, lat: 0, lng: 0 },
      ],
      [{ id: 1, user_id: 5, lat: 40, lng: 40, radius: 100 }],
      [
        { id: 1, user_id: 5, type: 'task', tracker_id: 7, lat: 50, lng: 50, radius: 100 },
        { id: 2, user_id: 5, type: 'route', tracker_id: 7, lat: null, lng: null, radius: null },
        { id: 3, user_id: 5, type: 'checkpoint', tracker_id: null, lat: 50, lng: 50, radius: 100 },
      ],
    );
    expect(index.size).toBe(6);
    expect(index.query([5], 10.0005, 10)).toEqual([{ kind: 'zone', id: 1 }]);
    expect(index.query([5], 20.9, 20.1)).toEqual([{ kind: 'zone', id: 2 }]);
    expect(index.query([5], 30.0004, 30.005)).toEqual([{ kind: 'zone', id: 3 }]);
    expect(index.query([5], 40, 40.001)).toEqual([{ kind: 'place', id: 1 }]);
    expect(sorted(index.query([5], 50, 50))).toEqual(['task:1', 'task:3']);
    expect(sorted(index.query([5], 50, 50, 7))).toEqual(['task:1']);
    expect(index.query([6], 50, 50)).toEqual([]);
  });

  it('reads the rows of migrations 005/006 with the geo version, in one snapshot', () => {
    const db = openDatabase(':memory:');
    db.pragma('foreign_keys = OFF'); // rows only: no users or trackers needed
    db.prepare("INSERT INTO zones (id, user_id, type, label, radius, center_lat, center_lng) VALUES (1, 5, 'circle', 'a', 100, 10, 10), (2, 5, 'polygon', 'b', NULL, NULL, NULL)").run();
    db.prepare('INSERT INTO zone_points (zone_id, ordinal, lat, lng) VALUES (2, 0, 20, 20), (2, 1, 20, 21), (2, 2, 21, 21)').run();
    db.prepare("INSERT INTO places (id, user_id, label, lat, lng, radius) VALUES (1, 5, 'p', 40, 40, 100)").run();
    const task = db.prepare("INSERT INTO tasks (id, user_id, type, tracker_id, label, lat, lng, radius, status_change_date, creation_date) VALUES (?, 5, ?, ?, 't', ?, ?, ?, 0, 0)");
    task.run(1, 'task', 7, 50, 50, 100);
    task.run(2, 'route', null, null, null, null);
    const rows = loadGeoRows(db);
    expect(rows.version).toBe(db.prepare("SELECT value FROM versions WHERE name = 'geo'").pluck().get());
    expect(rows.zones.map((z) => z.id)).toEqual([1, 2]);
    expect(rows.zonePoints).toHaveLength(3);
    expect(rows.places).toEqual([{ id: 1, user_id: 5, lat: 40, lng: 40, radius: 100 }]);
    expect(rows.tasks).toEqual([{ id: 1, user_id: 5, type: 'task', tracker_id: 7, lat: 50, lng: 50, radius: 100 }]);
    const index = GeoIndex.fromRows(rows.zones, rows.zonePoints, rows.places, rows.tasks);
    expect(index.size).toBe(4);
    expect(index.query([5], 20.1, 20.5)).toEqual([{ kind: 'zone', id: 2 }]);
    // The rows survive a trip through JSON (they travel to workers).
    expect(JSON.parse(JSON.stringify(rows))).toEqual(rows);
    db.close();
  });
});
