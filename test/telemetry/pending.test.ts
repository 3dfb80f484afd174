/**
 * The telemetry work list (telemetry_pending) when fixes keep arriving while a window is processed:
 * in-order data continues from the window's tail (no replay), late data and reprocessing requests
 * are never lost. Real SQLite file, the writer's and the workers' own store code.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pack } from '../../src/gateway/packing.ts';
import { FixStore } from '../../src/store/fixes.ts';
import { openStore } from '../../src/store/index.ts';
import { openSql } from '../helpers/sql.ts';
import type { WindowResult } from '../../src/store/telemetry.ts';
import type { DeviceRecord } from '../../protocols/types.ts';

const dir = mkdtempSync(join(tmpdir(), 'fsm-pending-'));
const file = join(dir, 'fsm.sqlite');
const store = openStore(file);
// The fix writer's store on its own connection, as the gateway's writer has one.
const sql = openSql(file);
afterAll(() => {
  sql.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});
const fixes = new FixStore(sql);
const T0 = Date.UTC(2026, 10, 20, 8);
const rec = (s: number): DeviceRecord => ({ time: T0 + s * 1000, lat: 54.7 + s * 1e-5, lng: 25.3, speed: 40, course: 0, satellites: 9, valid: true, attributes: {} });
const write = (source: number, seconds: number[]) => fixes.write([pack(source, seconds.map(rec), Date.now())], Date.now());
const pending = (source: number) => store.telemetry.pendingOf(source)!;

/** What a worker writes for a window taken at `taken` that processed up to second `last`. */
function finish(source: number, taken: { version: number; late_version: number }, from: number, last: number): void {
  const result: WindowResult = {
    sourceId: source,
    from,
    replay: { gnss: from, lbs: from },
    segments: [],
    checkpoints: [],
    visits: [],
    counters: { odometerKm: 0, engineHours: 0, fuelConsumedL: 0 },
    pendingVersion: taken.version,
    lateVersion: taken.late_version,
    tail: { time: T0 + last * 1000, state: '{}' },
    complete: true,
    now: Date.now(),
  };
  store.telemetry.write(result);
}

describe('telemetry_pending', () => {
  it('in-order fixes that arrive while a window runs continue from its tail', () => {
    write(1, [0, 1, 2]);
    const taken = pending(1);
    expect(taken.from_time).toBe(T0);
    write(1, [3, 4]); // in order, while the window of 0..2 is processed
    finish(1, taken, 0, 2);
    // Just after the tail: the scheduler continues from the tail's state (in order), no replay.
    expect(pending(1)).toMatchObject({ from_time: T0 + 2000 + 1, late_from: null });
  });

  it('a late fix that arrives while a window runs is processed again from its time', () => {
    write(2, [10, 11, 12]);
    const taken = pending(2);
    write(2, [5]); // late: before the newest fix
    finish(2, taken, 0, 12);
    expect(pending(2)).toMatchObject({ from_time: T0 + 5000, late_from: T0 + 5000 });
    // The next window (from the checkpoint before 5 s) finishes with nothing new: done.
    const again = pending(2);
    finish(2, again, 0, 12);
    expect(store.telemetry.pendingOf(2)).toBeUndefined();
  });

  it('a window that finishes without news clears the row', () => {
    write(3, [0, 1]);
    finish(3, pending(3), 0, 1);
    expect(store.telemetry.pendingOf(3)).toBeUndefined();
  });

  it('a reprocessing request (settings changed) during a window is kept', () => {
    write(4, [0, 1, 2]);
    const taken = pending(4);
    store.telemetry.setSettings(4, store.telemetry.settings(4));
    finish(4, taken, 0, 2);
    expect(pending(4)).toMatchObject({ from_time: 0 });
  });
});
