/**
 * The connection watcher (issue 12; docs/events.md "Connection"): a tracker silent for
 * FSM_CONNECTION_LOST_SECONDS gets one connection_lost, dated when the silence reached that length;
 * when it sends again, one connection_restored at its first receipt. Fixes are committed as the
 * gateway's writer commits them (their receipt time is the writer's clock); the watcher runs on a
 * test clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pack } from '../../src/gateway/packing.ts';
import { ConnectionWatcher } from '../../src/events/connection.ts';
import { openDatabase, type DB } from '../../src/store/db.ts';
import { FixStore } from '../../src/store/fixes.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const MIN = 60_000;
// In the future: the server's own watcher (wall clock) never finds these devices silent.
const T = Date.UTC(2030, 0, 10, 8, 0, 0);
const P = { lat: 54.6872, lng: 25.2797 };

let s: TestServer;
let owner: { id: number; hash: string };
let writer: DB;
let fixes: FixStore;
let tracker: number;
let source: number;
let watcher: ConnectionWatcher;
let now = T;

beforeAll(async () => {
  s = await startTestServer({ FSM_CONNECTION_CHECK_SECONDS: '3600' });
  owner = await s.user('conn@example.com', { timeZone: 'UTC' });
  tracker = s.addTracker(owner.id, '354000000000001');
  source = s.store.trackers.getAny(tracker)!.source_id;
  writer = openDatabase(`${s.dataDir}/fsm.sqlite`);
  fixes = new FixStore(writer);
  watcher = new ConnectionWatcher(s.store, { lostSeconds: 900, checkSeconds: 30 }, () => now);
});
afterAll(async () => {
  writer?.close();
  await s?.close();
});

/** A fix with this device time, received at `received`. */
const send = (time: number, received: number) => fixes.write([pack(source, [{ time, ...P, speed: 0, valid: true, attributes: {} }], received)], received);
const events = () =>
  (s.sql.prepare("SELECT type, time, lat, lng, extra, tracker_id FROM events WHERE type LIKE 'connection%' ORDER BY id").all() as Array<Record<string, unknown>>).map((e) => ({
    ...e,
    extra: JSON.parse(e.extra as string),
  }));

describe('connection lost and restored', () => {
  it('lost once after the silence, restored once at the first receipt after it', async () => {
    send(T, T);
    now = T + 14 * MIN;
    expect(await watcher.check()).toEqual({ lost: [], restored: [] });
    now = T + 16 * MIN;
    expect(await watcher.check()).toEqual({ lost: [source], restored: [] });
    now = T + 20 * MIN;
    expect(await watcher.check()).toEqual({ lost: [], restored: [] });
    expect(events()).toEqual([{ type: 'connection_lost', time: T + 15 * MIN, ...P, extra: { since: T }, tracker_id: null }]);
    // Back after 40 minutes: buffered fixes first (older device times), then live ones.
    send(T + 5 * MIN, T + 40 * MIN);
    send(T + 41 * MIN, T + 41 * MIN);
    now = T + 42 * MIN;
    expect(await watcher.check()).toEqual({ lost: [], restored: [source] });
    expect(await watcher.check()).toEqual({ lost: [], restored: [] });
    expect(events()[1]).toEqual({ type: 'connection_restored', time: T + 40 * MIN, ...P, extra: { since: T, lost_duration: 40 * 60 }, tracker_id: null });
  });

  it('history/tracker/list shows them with their text', async () => {
    const r = await s.call('history/tracker/list', { hash: owner.hash, trackers: [tracker], from: '2030-01-10 08:00:00', to: '2030-01-10 09:00:00', types: ['connection_lost', 'connection_restored'] });
    // The documented entry (issue 23): the event type in `event`, `type` says what it is about.
    const extra = { emergency: false, tracker_label: 'tracker 354000000000001', since: '2030-01-10 08:00:00' };
    expect(r.body.list.map((e: { type: string; event: string; time: string; message: string; extra: unknown }) => [e.type, e.event, e.time, e.message, e.extra])).toEqual([
      ['tracker', 'connection_lost', '2030-01-10 08:15:00', 'Connection lost', extra],
      ['tracker', 'connection_restored', '2030-01-10 08:40:00', 'Connection restored after 40 min', { ...extra, lost_duration: 2400 }],
    ]);
  });

  it('a device whose only tracker is deleted is not watched', async () => {
    const gone = s.addTracker(owner.id, '354000000000002');
    const src = s.store.trackers.getAny(gone)!.source_id;
    fixes.write([pack(src, [{ time: T, ...P, valid: true, attributes: {} }], T)], T);
    s.store.trackers.markDeleted(gone);
    now = T + 60 * MIN;
    expect((await watcher.check()).lost).not.toContain(src);
  });
});
