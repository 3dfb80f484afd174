/** Point batches: the hand-written packed columns are the protobuf wire format of PointBatch, both ways. */
import { describe, expect, it } from 'vitest';
import { decodePoints, encodeColumns, encodePoints, joinBatches, PointBatch, splitBatches } from '../../src/telemetry/batch.ts';
import { emptyFullColumns, flagsOf } from '../../src/core/point.ts';
import type { Point } from '../../src/telemetry/types.ts';

const points: Point[] = Array.from({ length: 300 }, (_, i) => ({
  time: 1_750_000_000_000 + i * 1000,
  lat: 54.6 + i * 1e-4,
  lng: 25.2 - i * 1e-4,
  alt: i % 7 ? 100 + i : NaN,
  speed: i % 50,
  course: (i * 7) % 360,
  satellites: 9,
  precision: i % 3 ? NaN : 12,
  hdop: 0.9,
  valid: i % 11 !== 0,
  lbs: i % 13 === 0,
  ...(i % 5 ? { ignition: i % 2 === 0 } : {}),
  ...(i % 17 === 0 ? { event: true } : {}),
  ...(i % 4 === 0 ? { odometer: i * 10, hours: i * 1000, fuelUsed: i / 10 } : {}),
}));

const same = (a: Point[], b: Point[]) => expect(JSON.stringify(b)).toBe(JSON.stringify(a));

describe('PointBatch', () => {
  it('several windows travel in one buffer and decode from views into it, empty windows included', () => {
    const a = points.slice(0, 2);
    const b = points.slice(1);
    const joined = joinBatches([{ n: a.length, bytes: encodePoints(a) }, { n: 0, bytes: new Uint8Array(0) }, { n: b.length, bytes: encodePoints(b) }]);
    // What the receiving thread gets: a fresh buffer (structured clone / transfer).
    const parts = splitBatches(new Uint8Array(joined.slice().buffer));
    expect(parts.map((p) => p.n)).toEqual([a.length, 0, b.length]);
    same(a, decodePoints(parts[0].bytes));
    same(b, decodePoints(parts[2].bytes));
  });
  it('round-trips points', () => same(points, decodePoints(encodePoints(points))));
  it('is what protobufjs reads and writes for the schema', () => {
    const bytes = encodePoints(points);
    const msg = PointBatch.decode(bytes) as unknown as { time: number[]; flags: number[]; lat: number[] };
    expect(msg.time).toEqual(points.map((p) => p.time));
    expect(msg.lat).toEqual(points.map((p) => p.lat));
    const back = PointBatch.encode(msg).finish();
    same(points, decodePoints(back));
  });
  it('columns encode to the same bytes as points', () => {
    const c = emptyFullColumns(points.length + 5); // room to spare: only n rows count
    c.n = points.length;
    points.forEach((p, i) => {
      for (const k of ['time', 'lat', 'lng', 'alt', 'speed', 'course', 'satellites', 'precision', 'hdop'] as const) c[k][i] = p[k];
      c.odometer[i] = p.odometer ?? NaN;
      c.hours[i] = p.hours ?? NaN;
      c.fuelUsed[i] = p.fuelUsed ?? NaN;
      c.flags[i] = flagsOf({ valid: p.valid, lbs: p.lbs, ignition: p.ignition, alarm: p.event });
    });
    expect(Buffer.from(encodeColumns(c)).equals(Buffer.from(encodePoints(points)))).toBe(true);
  });
});
