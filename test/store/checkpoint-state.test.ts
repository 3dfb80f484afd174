/**
 * Telemetry checkpoints stored compactly (issue 15): the state goes in as JSON text and comes back
 * as the identical text, from a packed BLOB or from a text row stored before; the packed form is a
 * fraction of the text. Real SQLite file, the workers' store code.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { packState, unpackState } from '../../src/store/checkpoint-state.ts';
import { openSql } from '../helpers/sql.ts';
import type { WindowResult } from '../../src/store/telemetry.ts';

const dir = mkdtempSync(join(tmpdir(), 'fsm-checkpoint-'));
const file = join(dir, 'fsm.sqlite');
const store = openStore(file);
const sql = openSql(file);
afterAll(() => {
  sql.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.UTC(2026, 10, 20, 8);

/** A state like the processor writes at the start of a trip, with some zone visits. */
function state(i: number): string {
  return JSON.stringify({
    pipeline: {
      v: 1,
      filter: { gnss: { last: { time: T0 + i * 1000, lat: 54.7601207 + i * 1e-5, lng: 25.1098105, precision: 0 }, pending: [] }, lbs: { last: null, pending: [] } },
      gnss: { mode: 'trip', last: { time: T0 + i * 1000, lat: 54.76, lng: 25.11, speed: 14 + i, moving: true, ignitionOff: false, event: false, precision: null }, seg: { start: T0, end: T0 + i * 1000, points: i, lengthKm: 4.728075237653164 * i }, run: null, tripAtStop: null, tripKm: 0 },
      lbs: { mode: 'none', last: null, seg: null, run: null, tripAtStop: null, tripKm: 0 },
      counters: { odometerKm: 4.778000000000003 + i, hoursMs: 330000, fuelL: 0, devOdometer: 164040162, devHours: null, devFuel: null, tripKm: i / 3, ignition: true, lastTime: T0 + i * 1000 },
      events: { ignition: true, speeding: null, parking: null },
    },
    visits: { fences: Array.from({ length: i % 4 }, (_, k) => ({ kind: 'zone', id: k + 1, enter: k ? T0 : null, run: null })) },
    note: 'Ünïcødé 😀',
  });
}

function result(source: number, from: number, checkpoints: Array<{ time: number; state: string }>): WindowResult {
  return {
    sourceId: source,
    from,
    replay: { gnss: from, lbs: from },
    segments: [],
    checkpoints,
    visits: [],
    counters: { odometerKm: 0, engineHours: 0, fuelConsumedL: 0 },
    pendingVersion: 0,
    lateVersion: 0,
    tail: null,
    complete: true,
    now: Date.now(),
  };
}

describe('telemetry checkpoints', () => {
  it('come back as the identical JSON text, stored as a BLOB of a fraction of its size', () => {
    const cps = Array.from({ length: 20 }, (_, i) => ({ time: T0 + i * 600_000, state: state(i) }));
    store.telemetry.write(result(7, T0, cps));
    for (const c of cps) {
      expect(store.telemetry.checkpoint(7, c.time)).toEqual(c);
      expect(store.telemetry.checkpoint(7, c.time + 1000)).toEqual(c);
    }
    expect(store.telemetry.checkpoint(7, T0 - 1)).toBeUndefined();
    const rows = sql.prepare('SELECT typeof(state) AS type, length(state) AS bytes FROM telemetry_checkpoints WHERE source_id = 7').all() as Array<{ type: string; bytes: number }>;
    expect(rows).toHaveLength(20);
    expect(rows.every((r) => r.type === 'blob')).toBe(true);
    const text = cps.reduce((s, c) => s + Buffer.byteLength(c.state), 0);
    const stored = rows.reduce((s, r) => s + r.bytes, 0);
    expect(stored).toBeLessThan(text / 3);
  });

  it('rows stored as JSON text before are read as they are, beside packed ones', () => {
    sql.prepare('INSERT INTO telemetry_checkpoints (source_id, time, state) VALUES (?, ?, ?)').run(8, T0, state(1));
    store.telemetry.write(result(8, T0 + 1, [{ time: T0 + 60_000, state: state(2) }]));
    expect(store.telemetry.checkpoint(8, T0 + 30_000)).toEqual({ time: T0, state: state(1) });
    expect(store.telemetry.checkpoint(8, T0 + 90_000)).toEqual({ time: T0 + 60_000, state: state(2) });
  });

  it('packing roundtrips any text, and an unknown format byte is refused', () => {
    for (const s of ['{}', '', state(3), 'x'.repeat(100_000), '{"a":"\\ud800"}']) expect(unpackState(packState(s))).toBe(s);
    expect(() => unpackState(new Uint8Array([9, 1, 2]))).toThrow(/unknown checkpoint state format 9/);
  });
});
