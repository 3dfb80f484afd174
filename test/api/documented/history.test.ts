/**
 * history/tracker/list as the public documentation writes the request (`events`, `ascending`,
 * `only_emergency`, ...), checked for the documented answer (`list`, `limit_exceeded`, `total`,
 * `total_unread`) and entry members (issue 23).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasMembers, startHarness, type Harness } from './harness.ts';

let h: Harness;
const T = Date.UTC(2031, 3, 2, 7, 0, 0); // 09:00 Berlin
const ids: number[] = [];
beforeAll(async () => {
  h = await startHarness();
  const source = h.s.store.trackers.getAny(h.tracker)!.source_id;
  const add = h.s.sql.prepare('INSERT INTO events (source_id, tracker_id, type, time, decided, lat, lng, extra) VALUES (?, ?, ?, ?, NULL, ?, ?, ?)');
  for (const [k, type] of ['ignition_on', 'alarm_sos', 'ignition_off'].entries()) ids.push(Number(add.run(source, h.tracker, type, T + k * 60_000, 48.137, 11.575, null).lastInsertRowid));
});
afterAll(() => h?.close());

const period = { from: '2031-04-02 00:00:00', to: '2031-04-02 23:59:59' };
const ENTRY = ['id', 'type', 'is_read', 'message', 'time', 'event', 'tracker_id', 'rule_id', 'track_id', 'location', 'address', 'extra'];

describe('history/tracker/list', () => {
  it('answers list, limit_exceeded, total, total_unread; entries of the documented members', async () => {
    const r = await h.documented('history/tracker/list', { trackers: [h.tracker], ...period }, ['list', 'limit_exceeded', 'total', 'total_unread']);
    expect(r).toMatchObject({ limit_exceeded: false, total: 3, total_unread: 3 });
    for (const e of r.list) hasMembers(e, ENTRY, 'history entry');
    expect(r.list[0]).toMatchObject({ id: ids[0], type: 'tracker', event: 'ignition_on', is_read: false, tracker_id: h.tracker, time: '2031-04-02 09:00:00', extra: { tracker_label: 'Van documented', emergency: false } });
    hasMembers(r.list[0].location, ['lat', 'lng'], 'entry location');
  });

  it('events, limit, ascending, only_emergency as documented', async () => {
    const typed = await h.documented('history/tracker/list', { trackers: [h.tracker], ...period, events: ['ignition_on', 'ignition_off'] }, ['list']);
    expect(typed.list.map((e: any) => e.event)).toEqual(['ignition_on', 'ignition_off']);
    const limited = await h.documented('history/tracker/list', { trackers: [h.tracker], ...period, limit: 2, ascending: false }, ['list']);
    expect(limited).toMatchObject({ limit_exceeded: true, total: 3, total_unread: 3 });
    expect(limited.list.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    const sos = await h.documented('history/tracker/list', { trackers: [h.tracker], ...period, only_emergency: true, only_unread: false, add_tracker_label: true, add_tracker_files: false }, ['list']);
    expect(sos.list.map((e: any) => [e.event, e.extra.emergency])).toEqual([['alarm_sos', true]]);
    const get = await h.documentedGet('history/tracker/list', { trackers: JSON.stringify([h.tracker]), ...period }, ['list', 'total']);
    expect(get.total).toBe(3);
  });
});
