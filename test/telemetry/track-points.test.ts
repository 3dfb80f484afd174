/**
 * Packed track points (src/store/track-points.ts) against a plain model, on a real SQLite file:
 * windows in order, live appends of a few points, late windows replayed from earlier times, windows
 * that drop points; every read of a random span equals the model, and chunks stay disjoint and
 * at most CHUNK_POINTS long.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { openSql } from '../helpers/sql.ts';
import { CHUNK_POINTS, emptyPacked, type PackedPoints } from '../../src/store/track-points.ts';
import { rng } from './geofence/helpers.ts';
import { flagsOf } from '../../src/core/point.ts';

const dir = mkdtempSync(join(tmpdir(), 'fsm-track-points-'));
const file = join(dir, 'fsm.sqlite');
const store = openStore(file);
const sql = openSql(file);
afterAll(() => {
  sql.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});
const points = store.telemetry.trackPoints;

interface P {
  time: number;
  lat: number;
  lng: number;
  lbs: boolean;
}

function packed(ps: P[]): PackedPoints {
  const out = emptyPacked(ps.length);
  for (const p of ps) {
    out.time[out.n] = p.time;
    out.lat[out.n] = p.lat;
    out.lng[out.n] = p.lng;
    out.flags[out.n++] = flagsOf({ valid: true, lbs: p.lbs });
  }
  return out;
}

describe('packed track points', () => {
  it('equal a model through in-order windows, live appends and late replays', () => {
    const rand = rng(5);
    const source = 7;
    const model = new Map<number, P>();
    const point = (time: number): P => ({ time, lat: 50 + rand(), lng: 8 + rand(), lbs: rand() < 0.1 });
    let now = 1_000_000;
    for (let step = 0; step < 400; step++) {
      const kind = rand();
      let from: number;
      let to: number;
      let ps: P[];
      if (kind < 0.5) {
        // In order: the next few (live) or many (backlog) points after the newest.
        const n = rand() < 0.5 ? 1 + Math.floor(rand() * 3) : Math.floor(rand() * 700);
        from = now + 1;
        ps = Array.from({ length: n }, (_, k) => point(now + 1000 * (k + 1)));
        now += 1000 * Math.max(1, n);
        to = n ? ps[n - 1].time : now;
      } else {
        // A replay of an earlier span (late data): its points now are the model's plus some new
        // ones at odd times, minus some (as if they were never points).
        from = Math.floor(rand() * now);
        to = from + Math.floor(rand() * 200_000);
        const inside = [...model.values()].filter((p) => p.time >= from && p.time <= to && rand() > 0.2);
        const extra = Array.from({ length: Math.floor(rand() * 20) }, () => point(from + 500 + 1000 * Math.floor(rand() * ((to - from) / 1000))));
        ps = [...new Map([...inside, ...extra].filter((p) => p.time <= to).map((p) => [p.time, p])).values()].sort((a, b) => a.time - b.time);
      }
      points.replace(source, from, to, packed(ps));
      for (const t of [...model.keys()]) if (t >= from && t <= to) model.delete(t);
      for (const p of ps) model.set(p.time, p);

      // A random span, with and without GSM LBS points.
      const a = Math.floor(rand() * (now + 5000)) - 2000;
      const b = a + Math.floor(rand() * 400_000);
      const lbs = rand() < 0.5;
      const got = points.read(source, a, b, lbs);
      const want = [...model.values()].filter((p) => p.time >= a && p.time <= b && (lbs || !p.lbs)).sort((x, y) => x.time - y.time);
      expect(Array.from(got.time.subarray(0, got.n))).toEqual(want.map((p) => p.time));
      expect(Array.from(got.lat.subarray(0, got.n))).toEqual(want.map((p) => p.lat));
      expect(Array.from(got.lng.subarray(0, got.n))).toEqual(want.map((p) => p.lng));
      expect(Array.from(got.flags.subarray(0, got.n))).toEqual(want.map((p) => flagsOf({ valid: true, lbs: p.lbs })));
    }
    const chunks = sql.prepare('SELECT first_time, last_time, length(data) AS bytes FROM track_points WHERE source_id = ? ORDER BY first_time').all(source) as Array<{ first_time: number; last_time: number; bytes: number }>;
    chunks.forEach((c, i) => {
      expect(c.bytes / 25).toBeLessThanOrEqual(CHUNK_POINTS);
      expect(c.first_time).toBeLessThanOrEqual(c.last_time);
      if (i) expect(c.first_time).toBeGreaterThan(chunks[i - 1].last_time);
    });
    expect(chunks.reduce((s, c) => s + c.bytes / 25, 0)).toBe(model.size);
  });

  it('covers up to the last processed point, or just before data still waiting from an earlier time', () => {
    const source = 9;
    expect(points.coveredUntil(source)).toBe(-Infinity);
    sql.prepare('INSERT INTO telemetry_tail (source_id, time, state) VALUES (?, ?, ?)').run(source, 5000, '{}');
    expect(points.coveredUntil(source)).toBe(5000);
    sql.prepare('INSERT INTO telemetry_pending (source_id, from_time, version) VALUES (?, ?, 1)').run(source, 9000);
    expect(points.coveredUntil(source)).toBe(5000); // newer data waiting: covered up to the tail
    sql.prepare('UPDATE telemetry_pending SET from_time = 3000 WHERE source_id = ?').run(source);
    expect(points.coveredUntil(source)).toBe(2999); // late data from 3000 on is not in the chunks yet
  });
});
