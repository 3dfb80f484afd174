/**
 * Working statuses over real HTTP (issue 11; spec: Status and status listing, Statuses /status;
 * docs/statuses.md): listings and their ordered entries, statuses, tracker statuses with
 * last_change, and every error code of the calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDateTime } from '../../src/core/time.ts';
import { changeStatus, MAX_LISTINGS_PER_USER } from '../../src/statuses/statuses.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
const TZ = 'Asia/Tokyo';
beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com', { timeZone: TZ });
  bob = await s.user('bob@example.com');
});
afterAll(() => s.close());

let imei = 353000000000000;
const tracker = (userId = ann.id) => s.addTracker(userId, String(imei++));
const ok = { success: true };
const fail = (code: number, description: string) => ({ success: false, status: { code, description } });

async function listing(o: Record<string, unknown> = {}, hash = ann.hash): Promise<number> {
  const r = await s.call('status/listing/create', { hash, listing: { label: 'Work', supervisor_controlled: true, ...o } });
  expect(r.body).toEqual({ success: true, id: expect.any(Number) });
  return r.body.id;
}
async function status(listingId: number, label: string, color = '00ff00', hash = ann.hash): Promise<number> {
  const r = await s.call('status/create', { hash, listing_id: listingId, status: { label, color } });
  expect(r.body).toEqual({ success: true, id: expect.any(Number) });
  return r.body.id;
}
const assignListing = (tracker_id: number, listing_id: number | null, hash = ann.hash) => s.call('status/listing/tracker/assign', { hash, tracker_id, listing_id });
const assign = (tracker_id: number, new_status_id: number, hash = ann.hash) => s.call('status/tracker/assign', { hash, tracker_id, new_status_id });
const count = (table: string) => s.sql.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
/** A tariff copy with the changes, given to the user (and its devices). */
function tariff(userId: number, changes: Record<string, unknown>): number {
  const t = s.store.tariffs.copy(1, `t${imei++}`);
  s.store.tariffs.update(t, changes);
  s.sql.prepare('UPDATE users SET tariff_id = ? WHERE id = ?').run(t, userId);
  return t;
}

describe('listings', () => {
  it('create, read, list, update (entries order preserved), delete', async () => {
    const l = await listing({ label: 'Shift', employee_controlled: true });
    expect((await s.call('status/listing/read', { hash: ann.hash, listing_id: l })).body).toEqual({
      success: true,
      value: { id: l, label: 'Shift', employee_controlled: true, supervisor_controlled: true, entries: [] },
    });
    const a = await status(l, 'Busy', 'ff0000');
    const b = await status(l, 'Free', '00ff00');
    const c = await status(l, 'Lunch', '0000ff');
    expect((await s.call('status/listing/read', { hash: ann.hash, listing_id: l })).body.value.entries).toEqual([a, b, c]);
    const upd = await s.call('status/listing/update', { hash: ann.hash, listing: { id: l, label: 'Shift 2', employee_controlled: false, supervisor_controlled: true, entries: [c, a, b] } });
    expect(upd.body).toEqual(ok);
    const value = { id: l, label: 'Shift 2', employee_controlled: false, supervisor_controlled: true, entries: [c, a, b] };
    expect((await s.call('status/listing/read', { hash: ann.hash, listing_id: l })).body.value).toEqual(value);
    expect((await s.call('status/listing/list', { hash: ann.hash })).body.list).toContainEqual(value);
    expect((await s.call('status/list', { hash: ann.hash, listing_id: l })).body).toEqual({
      success: true,
      list: [
        { id: c, label: 'Lunch', color: '0000FF' },
        { id: a, label: 'Busy', color: 'FF0000' },
        { id: b, label: 'Free', color: '00FF00' },
      ],
    });
    // A new status goes last.
    const d = await status(l, 'Away');
    expect((await s.call('status/listing/read', { hash: ann.hash, listing_id: l })).body.value.entries).toEqual([c, a, b, d]);
    expect((await s.call('status/listing/delete', { hash: ann.hash, listing_id: l })).body).toEqual(ok);
    expect((await s.call('status/listing/read', { hash: ann.hash, listing_id: l })).body).toEqual(fail(201, `Not found in the database: status listing ${l}`));
    expect(s.sql.prepare('SELECT count(*) FROM statuses WHERE listing_id = ?').pluck().get(l)).toBe(0);
  });

  it("an update's entries must be the full set of the listing's statuses (7 naming listing.entries; nothing changed)", async () => {
    const l = await listing();
    const a = await status(l, 'A');
    const b = await status(l, 'B');
    const other = await status(await listing(), 'X');
    for (const entries of [[a], [a, b, b], [a, b, other], [b, other], []]) {
      const r = await s.call('status/listing/update', { hash: ann.hash, listing: { id: l, label: 'Changed', entries } });
      expect(r.status).toBe(400);
      expect(r.body.status.code).toBe(7);
      expect(r.body.errors[0].parameter).toBe('listing.entries');
    }
    expect((await s.call('status/listing/read', { hash: ann.hash, listing_id: l })).body.value).toMatchObject({ label: 'Work', entries: [a, b] });
  });

  it('deleting a listing unassigns its trackers and their statuses', async () => {
    const l = await listing();
    const st = await status(l, 'On');
    const t = tracker();
    expect((await assignListing(t, l)).body).toEqual(ok);
    expect(s.store.trackers.get(ann.id, t)!.status_listing_id).toBe(l);
    expect((await assign(t, st)).body.success).toBe(true);
    await s.call('status/listing/delete', { hash: ann.hash, listing_id: l });
    expect(s.store.trackers.get(ann.id, t)!.status_listing_id).toBeNull();
    const r = (await s.call('status/tracker/read', { hash: ann.hash, tracker_id: t })).body;
    expect(r.current_status).toBeNull();
    expect(r.last_change).toMatchObject({ new_status_id: st, origin: 'supervisor' });
  });

  it('assigning another listing (or null) clears the current status; 204 for an unknown listing, 201 for an unknown tracker', async () => {
    const l1 = await listing();
    const l2 = await listing();
    const st = await status(l1, 'On');
    const t = tracker();
    await assignListing(t, l1);
    await assign(t, st);
    expect((await assignListing(t, l1)).body).toEqual(ok);
    expect((await s.call('status/tracker/read', { hash: ann.hash, tracker_id: t })).body.current_status).toEqual({ id: st, label: 'On', color: '00FF00' });
    expect((await assignListing(t, l2)).body).toEqual(ok);
    expect((await s.call('status/tracker/read', { hash: ann.hash, tracker_id: t })).body.current_status).toBeNull();
    expect((await assignListing(t, null)).body).toEqual(ok);
    expect(s.store.trackers.get(ann.id, t)!.status_listing_id).toBeNull();
    expect((await assignListing(t, 999999)).body).toEqual(fail(204, 'Entity not found: status listing 999999'));
    expect((await assignListing(999999, l1)).body).toEqual(fail(201, 'Not found in the database: tracker 999999'));
  });

  it(`268 past ${MAX_LISTINGS_PER_USER} listings per user`, async () => {
    const u = await s.user('many@example.com');
    for (let i = 0; i < MAX_LISTINGS_PER_USER; i++) await listing({}, u.hash);
    const r = await s.call('status/listing/create', { hash: u.hash, listing: { label: 'One more' } });
    expect(r.body).toEqual({ ...fail(268, `Over quota: at most ${MAX_LISTINGS_PER_USER} status listings, ${MAX_LISTINGS_PER_USER} exist`), limit: MAX_LISTINGS_PER_USER });
  });

  it('bad inputs: 7 naming the parameter, nothing stored', async () => {
    const before = count('status_listings');
    for (const [params, parameter] of [
      [{ listing: { label: '' } }, 'listing.label'],
      [{ listing: { label: 'x'.repeat(101) } }, 'listing.label'],
      [{ listing: { label: 'L', supervisor_controlled: 'yes' } }, 'listing.supervisor_controlled'],
      [{ listing: { label: 'L', entries: [1] } }, 'listing.entries'],
      [{}, 'listing'],
    ] as const) {
      const r = await s.call('status/listing/create', { hash: ann.hash, ...params });
      expect(r.body.status.code, JSON.stringify(params)).toBe(7);
      expect(r.body.errors[0].parameter).toBe(parameter);
    }
    expect(count('status_listings')).toBe(before);
    expect((await s.call('status/listing/update', { hash: ann.hash, listing: { label: 'L', entries: [] } })).body.errors[0].parameter).toBe('listing.id');
    expect((await s.call('status/listing/read', { hash: ann.hash, listing_id: 'x' })).body.errors[0].parameter).toBe('listing_id');
    expect((await s.call('status/listing/delete', { hash: ann.hash })).body.errors[0].parameter).toBe('listing_id');
    expect((await s.call('status/listing/tracker/assign', { hash: ann.hash, tracker_id: 1 })).body.errors[0].parameter).toBe('listing_id');
  });
});

describe('statuses', () => {
  it('create, update, delete; deleting the current status clears it', async () => {
    const l = await listing();
    const st = await status(l, 'Busy', 'abcdef');
    expect((await s.call('status/update', { hash: ann.hash, status: { id: st, label: 'Very busy', color: '123456' } })).body).toEqual(ok);
    expect((await s.call('status/list', { hash: ann.hash, listing_id: l })).body.list).toEqual([{ id: st, label: 'Very busy', color: '123456' }]);
    const t = tracker();
    await assignListing(t, l);
    await assign(t, st);
    expect((await s.call('status/delete', { hash: ann.hash, status_id: st })).body).toEqual(ok);
    expect((await s.call('status/list', { hash: ann.hash, listing_id: l })).body.list).toEqual([]);
    expect((await s.call('status/tracker/read', { hash: ann.hash, tracker_id: t })).body.current_status).toBeNull();
    expect((await s.call('status/update', { hash: ann.hash, status: { id: st, label: 'x', color: '000000' } })).body).toEqual(fail(201, `Not found in the database: status ${st}`));
    expect((await s.call('status/delete', { hash: ann.hash, status_id: st })).body).toEqual(fail(201, `Not found in the database: status ${st}`));
    expect((await s.call('status/create', { hash: ann.hash, listing_id: 999999, status: { label: 'x', color: '000000' } })).body).toEqual(fail(201, 'Not found in the database: status listing 999999'));
    expect((await s.call('status/list', { hash: ann.hash, listing_id: 999999 })).body).toEqual(fail(201, 'Not found in the database: status listing 999999'));
  });

  it("268 past the tariff's max_statuses per listing", async () => {
    const u = await s.user('quota@example.com');
    tariff(u.id, { max_statuses: 2 });
    const l = await listing({}, u.hash);
    await status(l, 'A', '000000', u.hash);
    await status(l, 'B', '000000', u.hash);
    const r = await s.call('status/create', { hash: u.hash, listing_id: l, status: { label: 'C', color: '000000' } });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ ...fail(268, 'Over quota: at most 2 statuses per listing, 2 exist'), limit: 2 });
    // The quota is per listing.
    await status(await listing({}, u.hash), 'A', '000000', u.hash);
  });

  it('bad inputs: 7 naming the parameter, nothing stored or changed', async () => {
    const l = await listing();
    const st = await status(l, 'Keep', '111111');
    const before = count('statuses');
    for (const [params, parameter] of [
      [{ listing_id: l, status: { label: 'x', color: 'red' } }, 'status.color'],
      [{ listing_id: l, status: { label: 'x', color: '#112233' } }, 'status.color'],
      [{ listing_id: l, status: { label: 'x', color: '1234567' } }, 'status.color'],
      [{ listing_id: l, status: { label: 'x' } }, 'status.color'],
      [{ listing_id: l, status: { label: ' ', color: '000000' } }, 'status.label'],
      [{ status: { label: 'x', color: '000000' } }, 'listing_id'],
      [{ listing_id: l }, 'status'],
    ] as const) {
      const r = await s.call('status/create', { hash: ann.hash, ...params });
      expect(r.body.status.code, JSON.stringify(params)).toBe(7);
      expect(r.body.errors[0].parameter).toBe(parameter);
    }
    expect(count('statuses')).toBe(before);
    expect((await s.call('status/update', { hash: ann.hash, status: { id: st, label: 'x', color: 'zzzzzz' } })).body.errors[0].parameter).toBe('status.color');
    expect((await s.call('status/update', { hash: ann.hash, status: { label: 'x', color: '000000' } })).body.errors[0].parameter).toBe('status.id');
    expect((await s.call('status/delete', { hash: ann.hash, status_id: 0 })).body.errors[0].parameter).toBe('status_id');
    expect((await s.call('status/list', { hash: ann.hash })).body.errors[0].parameter).toBe('listing_id');
    expect((await s.call('status/list', { hash: ann.hash, listing_id: l })).body.list).toEqual([{ id: st, label: 'Keep', color: '111111' }]);
  });
});

describe('tracker statuses', () => {
  it('assign answers last_change (origin supervisor, user time zone, location of the last fix); read and list show it; 263 for the current status', async () => {
    const l = await listing();
    const busy = await status(l, 'Busy', 'ff0000');
    const free = await status(l, 'Free', '00ff00');
    const t = tracker();
    await assignListing(t, l);
    expect((await s.call('status/tracker/read', { hash: ann.hash, tracker_id: t })).body).toEqual({ success: true, current_status: null, last_change: null });

    // No fix yet: location null.
    const t0 = formatDateTime(Date.now(), TZ);
    const first = await assign(t, busy);
    const t1 = formatDateTime(Date.now(), TZ);
    expect(first.body).toEqual({
      success: true,
      last_change: { id: expect.any(Number), old_status_id: null, new_status_id: busy, location: null, changed: expect.any(String), origin: 'supervisor' },
    });
    expect(first.body.last_change.changed >= t0 && first.body.last_change.changed <= t1).toBe(true);

    // A fix as the gateway's writer stores it.
    const source = s.store.trackers.getAny(t)!.source_id;
    s.sql
      .prepare('INSERT INTO device_state (source_id, fix_time, lat, lng, last_time, attrs, updated) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(source, Date.now() - 60_000, 55.75, 37.62, Date.now() - 60_000, '{}', Date.now());
    const second = await assign(t, free);
    expect(second.body.last_change).toEqual({
      id: expect.any(Number),
      old_status_id: busy,
      new_status_id: free,
      location: { lat: 55.75, lng: 37.62, address: '' },
      changed: expect.any(String),
      origin: 'supervisor',
    });
    expect(second.body.last_change.id).toBeGreaterThan(first.body.last_change.id);

    const read = await s.call('status/tracker/read', { hash: ann.hash, tracker_id: t });
    expect(read.body).toEqual({ success: true, current_status: { id: free, label: 'Free', color: '00FF00' }, last_change: second.body.last_change });
    const other = tracker();
    const listed = await s.call('status/tracker/list', { hash: ann.hash, trackers: [t, other] });
    expect(listed.body).toEqual({
      success: true,
      value: { [t]: { current_status: { id: free, label: 'Free', color: '00FF00' }, last_change: second.body.last_change }, [other]: { current_status: null, last_change: null } },
    });

    const same = await assign(t, free);
    expect(same.status).toBe(409);
    expect(same.body).toEqual(fail(263, `No change needed: status ${free} is already current`));
    expect(s.sql.prepare('SELECT origin FROM status_changes WHERE tracker_id = ? ORDER BY id').pluck().all(t)).toEqual(['supervisor', 'supervisor']);
  });

  it('the field app path: changeStatus with origin employee obeys employee_controlled and shows in last_change', async () => {
    const l = await listing({ supervisor_controlled: false, employee_controlled: true });
    const st = await status(l, 'On site');
    const t = tracker();
    await assignListing(t, l);
    const deps = { store: s.store, now: () => Date.UTC(2025, 0, 2, 3, 4, 5) };
    await changeStatus(deps, s.store.trackers.get(ann.id, t)!, st, 'employee');
    expect((await s.call('status/tracker/read', { hash: ann.hash, tracker_id: t })).body.last_change).toEqual({
      id: expect.any(Number),
      old_status_id: null,
      new_status_id: st,
      location: null,
      changed: '2025-01-02 12:04:05',
      origin: 'employee',
    });
    const closed = await listing({ employee_controlled: false });
    const st2 = await status(closed, 'x');
    await assignListing(t, closed);
    await expect(changeStatus(deps, s.store.trackers.get(ann.id, t)!, st2, 'employee')).rejects.toThrow(expect.objectContaining({ code: 13 }));
  });

  it('13 when the listing forbids supervisor changes; 204 without a listing or for a status outside it', async () => {
    const l = await listing({ supervisor_controlled: false, employee_controlled: true });
    const st = await status(l, 'Self');
    const t = tracker();
    expect((await assign(t, st)).body).toEqual(fail(204, `Entity not found: tracker ${t} has no status listing`));
    await assignListing(t, l);
    const r = await assign(t, st);
    expect(r.status).toBe(403);
    expect(r.body).toEqual(fail(13, `Operation not permitted: status listing ${l} forbids supervisor changes`));
    const open = await listing();
    const outside = await status(open, 'Elsewhere');
    const t2 = tracker();
    await assignListing(t2, await listing());
    expect((await assign(t2, outside)).body.status.code).toBe(204);
    expect(s.sql.prepare('SELECT count(*) FROM status_changes WHERE tracker_id IN (?, ?)').pluck().get(t, t2)).toBe(0);
  });

  it('201 for unknown and deleted trackers, 208 blocked, 219 clones, 236 without the tariff feature', async () => {
    const l = await listing();
    const st = await status(l, 'S');
    for (const [path, extra] of [['status/tracker/assign', { new_status_id: st }], ['status/tracker/read', {}]] as const) {
      expect((await s.call(path, { hash: ann.hash, tracker_id: 999999, ...extra })).body).toEqual(fail(201, 'Not found in the database: tracker 999999'));
      const deleted = tracker();
      s.store.trackers.markDeleted(deleted);
      expect((await s.call(path, { hash: ann.hash, tracker_id: deleted, ...extra })).body.status.code).toBe(201);
      const blocked = tracker();
      s.store.trackers.setBlocked(s.store.trackers.getAny(blocked)!.source_id, true);
      const b = await s.call(path, { hash: ann.hash, tracker_id: blocked, ...extra });
      expect(b.body).toEqual(fail(208, `Device blocked: tracker ${blocked}`));
      const clone = s.store.trackers.clone(s.store.trackers.getAny(tracker(bob.id))!, ann.id, 'clone');
      expect((await s.call(path, { hash: ann.hash, tracker_id: clone, ...extra })).body).toEqual(fail(219, `Not allowed for clones of the device: tracker ${clone}`));
      const noFeature = tracker();
      const tf = s.store.tariffs.copy(1, `nf${imei++}`);
      s.store.tariffs.update(tf, { has_statuses: false });
      s.sql.prepare('UPDATE sources SET tariff_id = ? WHERE id = ?').run(tf, s.store.trackers.getAny(noFeature)!.source_id);
      const f = await s.call(path, { hash: ann.hash, tracker_id: noFeature, ...extra });
      expect(f.status).toBe(402);
      expect(f.body).toEqual(fail(236, 'Feature unavailable due to tariff restrictions: statuses'));
    }
  });

  it('status/tracker/list: 217 names missing, blocked, clone and featureless trackers; 221 over 500 trackers; 7 without trackers', async () => {
    const good = tracker();
    const blocked = tracker();
    s.store.trackers.setBlocked(s.store.trackers.getAny(blocked)!.source_id, true);
    const clone = s.store.trackers.clone(s.store.trackers.getAny(tracker(bob.id))!, ann.id, 'clone');
    const bobs = tracker(bob.id);
    const featureless = tracker();
    const tf = s.store.tariffs.copy(1, `nf${imei++}`);
    s.store.tariffs.update(tf, { has_statuses: false });
    s.sql.prepare('UPDATE sources SET tariff_id = ? WHERE id = ?').run(tf, s.store.trackers.getAny(featureless)!.source_id);
    const r = await s.call('status/tracker/list', { hash: ann.hash, trackers: [good, blocked, clone, bobs, 999999, featureless] });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ ...fail(217, `List contains non-existent entities: trackers ${blocked}, ${clone}, ${bobs}, 999999, ${featureless}`), ids: [blocked, clone, bobs, 999999, featureless] });
    const many = Array.from({ length: 501 }, (_, i) => i + 1);
    expect((await s.call('status/tracker/list', { hash: ann.hash, trackers: many })).body).toEqual({ ...fail(221, 'Device limit exceeded: at most 500 trackers per call, 501 given'), limit: 500 });
    expect((await s.call('status/tracker/list', { hash: ann.hash })).body.errors[0].parameter).toBe('trackers');
    expect((await s.call('status/tracker/list', { hash: ann.hash, trackers: [good] })).body).toEqual({ success: true, value: { [good]: { current_status: null, last_change: null } } });
  });

  it('bad inputs of assign: 7 naming the parameter, nothing recorded', async () => {
    const before = count('status_changes');
    expect((await s.call('status/tracker/assign', { hash: ann.hash, tracker_id: 1 })).body.errors[0].parameter).toBe('new_status_id');
    expect((await s.call('status/tracker/assign', { hash: ann.hash, new_status_id: 1 })).body.errors[0].parameter).toBe('tracker_id');
    expect((await s.call('status/tracker/assign', { hash: ann.hash, tracker_id: -1, new_status_id: 1 })).body.errors[0].parameter).toBe('tracker_id');
    expect((await s.call('status/tracker/read', { hash: ann.hash })).body.errors[0].parameter).toBe('tracker_id');
    expect(count('status_changes')).toBe(before);
  });
});

describe('tariff feature, ownership, rights', () => {
  it('236 for every listing and status call when the user tariff has no statuses', async () => {
    const u = await s.user('nofeature@example.com');
    const l = await listing({}, u.hash);
    const st = await status(l, 'S', '000000', u.hash);
    const t = tracker(u.id);
    tariff(u.id, { has_statuses: false });
    for (const [path, p] of [
      ['status/listing/create', { listing: { label: 'L' } }],
      ['status/listing/read', { listing_id: l }],
      ['status/listing/update', { listing: { id: l, label: 'L', entries: [st] } }],
      ['status/listing/delete', { listing_id: l }],
      ['status/listing/list', {}],
      ['status/listing/tracker/assign', { tracker_id: t, listing_id: l }],
      ['status/create', { listing_id: l, status: { label: 'x', color: '000000' } }],
      ['status/update', { status: { id: st, label: 'x', color: '000000' } }],
      ['status/delete', { status_id: st }],
      ['status/list', { listing_id: l }],
      ['status/tracker/list', { trackers: [t] }],
    ] as const) {
      const r = await s.call(path, { hash: u.hash, ...p });
      expect(r.body, path).toEqual(fail(236, 'Feature unavailable due to tariff restrictions: statuses'));
    }
    expect(s.store.statuses.listing(u.id, l)!.label).toBe('Work');
  });

  it("another user's listings, statuses and trackers are not found and stay unchanged", async () => {
    const l = await listing();
    const st = await status(l, 'Mine', '222222');
    const t = tracker();
    await assignListing(t, l);
    const bobTracker = tracker(bob.id);
    expect((await s.call('status/listing/list', { hash: bob.hash })).body.list).toEqual([]);
    for (const [path, p, code, what] of [
      ['status/listing/read', { listing_id: l }, 201, `status listing ${l}`],
      ['status/listing/update', { listing: { id: l, label: 'Bob', entries: [st] } }, 201, `status listing ${l}`],
      ['status/listing/delete', { listing_id: l }, 201, `status listing ${l}`],
      ['status/listing/tracker/assign', { tracker_id: t, listing_id: null }, 201, `tracker ${t}`],
      ['status/listing/tracker/assign', { tracker_id: bobTracker, listing_id: l }, 204, `status listing ${l}`],
      ['status/create', { listing_id: l, status: { label: 'Bob', color: '000000' } }, 201, `status listing ${l}`],
      ['status/update', { status: { id: st, label: 'Bob', color: '000000' } }, 201, `status ${st}`],
      ['status/delete', { status_id: st }, 201, `status ${st}`],
      ['status/list', { listing_id: l }, 201, `status listing ${l}`],
      ['status/tracker/assign', { tracker_id: t, new_status_id: st }, 201, `tracker ${t}`],
      ['status/tracker/read', { tracker_id: t }, 201, `tracker ${t}`],
    ] as const) {
      const r = await s.call(path, { hash: bob.hash, ...p });
      expect(r.body, path).toEqual(fail(code, `${code === 201 ? 'Not found in the database' : 'Entity not found'}: ${what}`));
    }
    // Bob's tracker with Bob's listing cannot take Ann's status.
    const bl = await listing({}, bob.hash);
    await assignListing(bobTracker, bl, bob.hash);
    expect((await assign(bobTracker, st, bob.hash)).body.status.code).toBe(204);
    expect((await s.call('status/tracker/list', { hash: bob.hash, trackers: [t] })).body.status.code).toBe(217);
    expect(s.store.statuses.listing(ann.id, l)!.label).toBe('Work');
    expect(s.store.statuses.status(ann.id, st)!.label).toBe('Mine');
    expect(s.store.trackers.get(ann.id, t)!.status_listing_id).toBe(l);
  });

  it('a sub-user without tracker_update gets 13 for the changing calls, reads and assigns statuses; with it, works on the master\'s listings', async () => {
    const l = await listing();
    const st = await status(l, 'Shared');
    const t = tracker();
    await assignListing(t, l);
    const plain = await s.user('plain@example.com', { parent: 'ann@example.com', rights: [] });
    for (const [path, p] of [
      ['status/listing/create', { listing: { label: 'L' } }],
      ['status/listing/update', { listing: { id: l, label: 'L', entries: [st] } }],
      ['status/listing/delete', { listing_id: l }],
      ['status/listing/tracker/assign', { tracker_id: t, listing_id: null }],
      ['status/create', { listing_id: l, status: { label: 'x', color: '000000' } }],
      ['status/update', { status: { id: st, label: 'x', color: '000000' } }],
      ['status/delete', { status_id: st }],
    ] as const) {
      expect((await s.call(path, { hash: plain.hash, ...p })).body.status.code, path).toBe(13);
    }
    expect((await s.call('status/list', { hash: plain.hash, listing_id: l })).body.list).toEqual([{ id: st, label: 'Shared', color: '00FF00' }]);
    expect((await assign(t, st, plain.hash)).body.last_change).toMatchObject({ new_status_id: st, origin: 'supervisor' });
    const editor = await s.user('editor@example.com', { parent: 'ann@example.com', rights: ['tracker_update'] });
    expect((await s.call('status/create', { hash: editor.hash, listing_id: l, status: { label: 'By editor', color: '000000' } })).body.success).toBe(true);
  });
});
