/**
 * Check-ins (created in the field app: the domain call here) read, listed and deleted as the public
 * documentation writes the requests, checked for the documented members (issue 23).
 * Files: file/read and file/download are ours (the documentation has file/stats/read only, which we
 * do not implement); a check-in's files are in its `files`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckin } from '../../../src/checkins/checkins.ts';
import { parseDateTime } from '../../../src/core/time.ts';
import { hasMembers, startHarness, type Harness } from './harness.ts';

let h: Harness;
let id: number;
beforeAll(async () => {
  h = await startHarness();
  const deps = { store: h.s.store, geocoder: { reverse: async (lat: number, lng: number) => ({ lat, lng, address: 'Marienplatz 1' }), search: async () => [] }, now: Date.now };
  id = await createCheckin(deps, { trackerId: h.tracker, time: parseDateTime('2031-04-02 10:15:00', 'Europe/Berlin')!, location: { lat: 48.137, lng: 11.575, precision: 10 }, comment: 'Delivered to the front desk', fileIds: [] });
});
afterAll(() => h?.close());

// employee_id is optional (absent without an employee on the tracker).
const CHECKIN = ['id', 'marker_time', 'user_id', 'tracker_id', 'location', 'comment', 'files', 'form_id', 'form_label'];

describe('checkin/*', () => {
  it('read, list (documented filters and paging), delete', async () => {
    const read = await h.documented('checkin/read', { checkin_id: id }, ['value']);
    hasMembers(read.value, CHECKIN, 'checkin/read value');
    expect(read.value).toMatchObject({ id, tracker_id: h.tracker, marker_time: '2031-04-02 10:15:00', comment: 'Delivered to the front desk' });
    const list = await h.documented('checkin/list', { trackers: [h.tracker], from: '2031-04-01 00:00:00', to: '2031-04-03 00:00:00', offset: 0, limit: 100 }, ['list', 'count']);
    expect(list.list.map((c: any) => c.id)).toEqual([id]);
    hasMembers(list.list[0], CHECKIN, 'checkin/list item');
    const file = await h.s.call('checkin/list', { hash: h.user.hash, trackers: [h.tracker], from: '2031-04-01 00:00:00', to: '2031-04-03 00:00:00', format: 'xlsx' });
    expect(file.status).toBe(200);
    await h.documented('checkin/delete', { checkin_ids: [id] });
    expect((await h.documented('checkin/list', { trackers: [h.tracker] }, ['list', 'count'])).count).toBe(0);
  });
});
