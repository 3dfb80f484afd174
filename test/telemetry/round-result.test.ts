/**
 * Issue 9, "telemetry without detours": a round's points are read, processed and written by the
 * worker that processes them, and the task outcomes its visits imply come back with the round's
 * result. The main thread's store is booby-trapped: reading points, visits or tasks to judge there
 * fails the test. Real SQLite file, real worker pool.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/accounts/accounts.ts';
import { loadConfig } from '../../src/config.ts';
import { pack } from '../../src/gateway/packing.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { openFixStore } from '../../src/store/fixes.ts';
import { openStore } from '../../src/store/index.ts';
import { TelemetryScheduler } from '../../src/telemetry/scheduler.ts';
import type { RoundResult } from '../../src/telemetry/round.ts';
import type { DeviceRecord } from '../../protocols/types.ts';

const dir = mkdtempSync(join(tmpdir(), 'fsm-round-'));
const config = loadConfig({ FSM_DATA_DIR: dir });
const store = openStore(config.dbFile);
let scheduler: TelemetryScheduler | undefined;
afterAll(async () => {
  try {
    await scheduler?.close();
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const T0 = Date.UTC(2030, 0, 1, 8);
const ZONE = { lat: 54.7, lng: 25.3 };

describe('a telemetry round', () => {
  it('comes back with the task outcomes of its visits; the main thread reads no point, visit or task to judge', async () => {
    const { id: userId } = await createUser({ store, config, mailer: createMailer(config.mail), now: () => T0 }, { login: 'round@example.com', password: 'round-1' });
    const trackerId = store.trackers.add({ userId, deviceId: 'round1', protocol: 'teltonika', label: 'Van', tariffId: 1, now: T0 });
    const sourceId = store.trackers.getAny(trackerId)!.source_id;
    const taskId = store.tasks.create(userId, {
      type: 'task',
      draft: { label: 'Deliver', description: '', lat: ZONE.lat, lng: ZONE.lng, address: 'Depot', radius: 100, from_time: T0, to_time: T0 + 3 * 3600_000, external_id: null, max_delay: 0, min_stay_duration: 0, form_template_id: null },
      trackerId,
      status: 'assigned',
      origin: 'manual',
      now: T0,
    });
    // Ten minutes parked in the task's zone, one fix every 10 s.
    const records: DeviceRecord[] = Array.from({ length: 60 }, (_, k) => ({ time: T0 + 600_000 + k * 10_000, lat: ZONE.lat, lng: ZONE.lng, speed: 0, course: 0, satellites: 9, valid: true, attributes: {} }));
    const writer = openFixStore(config.dbFile, 'NORMAL');
    try {
      writer.fixes.write([pack(sourceId, records, T0)], T0);
    } finally {
      writer.close();
    }

    const trap = (name: string) => () => {
      throw new Error(`the main thread read ${name}`);
    };
    Object.assign(store.telemetry, { pointColumns: trap('points'), visitsOf: trap('visits'), visitsEndedBefore: trap('visits'), tasksToJudge: trap('tasks to judge') });
    const results: RoundResult[] = [];
    const errors: string[] = [];
    scheduler = new TelemetryScheduler(store, { dbFile: config.dbFile, threads: 1, now: () => T0 + 3600_000, onProcessed: (r) => results.push(r), log: (m, d) => errors.push(`${m} ${JSON.stringify(d)}`) });
    scheduler.start();
    expect(await scheduler.idle(30_000)).toBe(true);
    expect(errors).toEqual([]);

    const round = results.find((r) => r.written.includes(sourceId))!;
    expect(round.processed).toBe(60);
    expect(round.visits).toEqual([{ sourceId, from: 0, visits: [{ kind: 'task', id: taskId, enter: T0 + 600_000, exit: null }] }]);
    expect(round.tasks).toEqual([{ id: taskId, previous: 'assigned', status: 'done', at: T0 + 600_000, arrival_date: T0 + 600_000, stay_duration: 3000, completion_date: T0 + 600_000 }]);
    // (Still inside at `now`: the stay runs to now.) Written in the worker's transaction: the stored task says the same.
    expect(store.tasks.get(userId, taskId)).toMatchObject({ status: 'done', arrival_date: T0 + 600_000 });
  });
});
