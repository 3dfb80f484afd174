/** Tracker registration calls over real HTTP (issue 2; spec: Trackers), and ownership across two users. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com', { timeZone: 'Asia/Tokyo' });
  bob = await s.user('bob@example.com');
});
afterAll(() => s.close());

const row = (id: number) => s.store.trackers.getAny(id)!;

describe('tracker/list and tracker/read', () => {
  it('lists own trackers with the spec shape and tag_bindings', async () => {
    const id = s.addTracker(ann.id, '860000000000001', { label: 'Van', phone: '491701234567' });
    const tag = Number(s.sql.prepare("INSERT INTO tags (user_id, name) VALUES (?, 'north')").run(ann.id).lastInsertRowid);
    s.sql.prepare('INSERT INTO tracker_tags (tracker_id, tag_id, ordinal) VALUES (?, ?, 1)').run(id, tag);
    const r = await s.call('tracker/list', { hash: ann.hash });
    const t = r.body.list.find((x: any) => x.id === id);
    expect(t).toEqual({
      id,
      label: 'Van',
      clone: false,
      group_id: -1,
      source: { id: row(id).source_id, device_id: '860000000000001', model: '', blocked: false, tariff_id: 1, status_listing_id: null, creation_date: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/), tariff_end_date: null, phone: '491701234567' },
      tag_bindings: [{ tag_id: tag, ordinal: 1 }],
    });
    const read = await s.call('tracker/read', { hash: ann.hash, tracker_id: id });
    const { tag_bindings, ...rest } = t;
    expect(read.body).toEqual({ success: true, value: rest });
  });
  it('labels: only trackers whose label contains one of the strings (case-insensitive); 7 for bad lists', async () => {
    const u = await s.user('labels@example.com');
    const ids = ['aa1', 'bb2', 'cc3', 'AAx'].map((label, i) => s.addTracker(u.id, `86000000000090${i}`, { label }));
    const listed = async (labels: unknown) => (await s.call('tracker/list', { hash: u.hash, labels })).body;
    expect((await listed(['aa', 'b'])).list.map((t: any) => t.label)).toEqual(['aa1', 'bb2', 'AAx']);
    expect((await listed(['zz'])).list).toEqual([]);
    const all = await s.call('tracker/list', { hash: u.hash });
    expect(all.body.list.map((t: any) => t.id)).toEqual(ids);
    expect((await listed(['cc3'])).list).toEqual([all.body.list[2]]);
    for (const bad of [[], ['a', 'a'], [''], ['x'.repeat(61)], [null]]) {
      const r = await listed(bad);
      expect(r.status.code, JSON.stringify(bad)).toBe(7);
      expect(r.errors[0].parameter).toMatch(/^labels/);
    }
  });
  it("another user's tracker behaves as not found", async () => {
    const id = s.addTracker(ann.id, '860000000000002');
    expect((await s.call('tracker/list', { hash: bob.hash })).body.list.map((t: any) => t.id)).not.toContain(id);
    const r = await s.call('tracker/read', { hash: bob.hash, tracker_id: id });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ success: false, status: { code: 201, description: `Not found in the database: tracker ${id}` } });
    for (const call of ['tracker/change_phone', 'tracker/corrupt', 'tracker/delete']) {
      const x = await s.call(call, { hash: bob.hash, tracker_id: id, phone: '123456789' });
      expect([201, 204]).toContain(x.body.status.code);
    }
    expect(row(id).deleted).toBe(0);
  });
});

describe('group_id (department of the tracker\'s employee)', () => {
  it('-1 without an employee, 0 with an employee without department, else the department id; the cached list follows', async () => {
    const id = s.addTracker(ann.id, '860000000000003');
    const group = async () => (await s.call('tracker/list', { hash: ann.hash })).body.list.find((t: any) => t.id === id).group_id;
    expect(await group()).toBe(-1);
    const emp = (await s.call('employee/create', { hash: ann.hash, employee: { first_name: 'Ida', tracker_id: id } })).body.id;
    expect(await group()).toBe(0);
    const dept = (await s.call('department/create', { hash: ann.hash, department: { label: 'East' } })).body.id;
    await s.call('employee/update', { hash: ann.hash, employee: { id: emp, department_id: dept } });
    expect(await group()).toBe(dept);
    expect((await s.call('tracker/read', { hash: ann.hash, tracker_id: id })).body.value.group_id).toBe(dept);
    await s.call('employee/delete', { hash: ann.hash, employee_id: emp });
    expect(await group()).toBe(-1);
  });
});

describe('tracker/change_phone', () => {
  it('changes phone and APN', async () => {
    const id = s.addTracker(ann.id, '860000000000010');
    const r = await s.call('tracker/change_phone', { hash: ann.hash, tracker_id: id, phone: '79161234567', apn_name: 'internet', apn_user: 'u', apn_password: 'p' });
    expect(r.body).toEqual({ success: true });
    expect(row(id).phone).toBe('79161234567');
  });
  it('7 for a phone with a plus sign', async () => {
    const id = s.addTracker(ann.id, '860000000000011');
    const r = await s.call('tracker/change_phone', { hash: ann.hash, tracker_id: id, phone: '+79161234567' });
    expect(r.body.status.code).toBe(7);
    expect(r.body.errors[0].parameter).toBe('phone');
    expect(row(id).phone).toBe(null);
  });
  it('204 for an unknown tracker', async () => {
    expect((await s.call('tracker/change_phone', { hash: ann.hash, tracker_id: 999999, phone: '123456' })).body.status.code).toBe(204);
  });
  it('223 for a phone in use, 214 without GSM, 241 with a bundled SIM, 208 blocked, 219 clone', async () => {
    const a = s.addTracker(ann.id, '860000000000012', { phone: '4915112345678' });
    const b = s.addTracker(ann.id, '860000000000013');
    expect((await s.call('tracker/change_phone', { hash: ann.hash, tracker_id: b, phone: '4915112345678' })).body.status.code).toBe(223);
    const noGsm = s.addTracker(ann.id, '860000000000014', { hasGsm: false });
    expect((await s.call('tracker/change_phone', { hash: ann.hash, tracker_id: noGsm, phone: '4915100000001' })).body.status.code).toBe(214);
    const bundled = s.addTracker(ann.id, '860000000000015', { bundledSim: true, phone: '4915100000002' });
    expect((await s.call('tracker/change_phone', { hash: ann.hash, tracker_id: bundled, phone: '4915100000003' })).body.status.code).toBe(241);
    const blocked = s.addTracker(ann.id, '860000000000016');
    s.store.trackers.setBlocked(row(blocked).source_id, true);
    expect((await s.call('tracker/change_phone', { hash: ann.hash, tracker_id: blocked, phone: '4915100000004' })).body.status.code).toBe(208);
    const clone = s.store.trackers.clone(row(a), bob.id, 'shared');
    expect((await s.call('tracker/change_phone', { hash: bob.hash, tracker_id: clone, phone: '4915100000005' })).body.status.code).toBe(219);
    // nothing changed
    expect([row(a).phone, row(b).phone, row(noGsm).phone, row(bundled).phone, row(blocked).phone]).toEqual(['4915112345678', null, null, '4915100000002', null]);
  });
});

describe('tracker/corrupt', () => {
  it('marks the tracker deleted and spoils device id and phone; then 252', async () => {
    const id = s.addTracker(ann.id, '860000000000020', { phone: '4915100000020' });
    expect((await s.call('tracker/corrupt', { hash: ann.hash, tracker_id: id })).body).toEqual({ success: true });
    expect(row(id).deleted).toBe(1);
    expect(row(id).device_id).not.toBe('860000000000020');
    expect(row(id).phone).toBe(null);
    expect(s.store.trackers.deviceExists('860000000000020')).toBe(false);
    expect((await s.call('tracker/list', { hash: ann.hash })).body.list.map((t: any) => t.id)).not.toContain(id);
    expect((await s.call('tracker/corrupt', { hash: ann.hash, tracker_id: id })).body.status.code).toBe(252);
  });
  it('243 for a device that has connected, 219 for a clone, 208 blocked, 201 unknown', async () => {
    const seen = s.addTracker(ann.id, '860000000000021');
    s.sql.prepare('UPDATE sources SET first_seen = ?, last_seen = ? WHERE id = ?').run(Date.now(), Date.now(), row(seen).source_id);
    expect((await s.call('tracker/corrupt', { hash: ann.hash, tracker_id: seen })).body.status.code).toBe(243);
    const orig = s.addTracker(ann.id, '860000000000022');
    const clone = s.store.trackers.clone(row(orig), bob.id, 'c');
    expect((await s.call('tracker/corrupt', { hash: bob.hash, tracker_id: clone })).body.status.code).toBe(219);
    const blocked = s.addTracker(ann.id, '860000000000023');
    s.store.trackers.setBlocked(row(blocked).source_id, true);
    expect((await s.call('tracker/corrupt', { hash: ann.hash, tracker_id: blocked })).body.status.code).toBe(208);
    expect((await s.call('tracker/corrupt', { hash: ann.hash, tracker_id: 999999 })).body.status.code).toBe(201);
    expect([row(seen).deleted, row(orig).deleted, row(clone).deleted, row(blocked).deleted]).toEqual([0, 0, 0, 0]);
  });
});

describe('tracker/delete', () => {
  it('deletes a clone; 249 for an original', async () => {
    const orig = s.addTracker(ann.id, '860000000000030');
    const clone = s.store.trackers.clone(row(orig), bob.id, 'c');
    expect((await s.call('tracker/delete', { hash: ann.hash, tracker_id: orig })).body.status.code).toBe(249);
    expect((await s.call('tracker/delete', { hash: bob.hash, tracker_id: clone })).body).toEqual({ success: true });
    expect(row(clone).deleted).toBe(1);
    expect(row(orig).deleted).toBe(0);
  });
  it('203 naming the rules or vehicles that use the clone', async () => {
    const orig = s.addTracker(ann.id, '860000000000031');
    const clone = s.store.trackers.clone(row(orig), bob.id, 'c');
    const rule = Number(s.sql.prepare("INSERT INTO rules (user_id, label) VALUES (?, 'speeding')").run(bob.id).lastInsertRowid);
    s.sql.prepare('INSERT INTO rule_trackers (rule_id, tracker_id) VALUES (?, ?)').run(rule, clone);
    const r = await s.call('tracker/delete', { hash: bob.hash, tracker_id: clone });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ success: false, status: { code: 203, description: 'Delete entity associated with: rules use this tracker' }, rules: [rule] });
    s.sql.prepare('DELETE FROM rule_trackers').run();
    const v = Number(s.sql.prepare("INSERT INTO vehicles (user_id, label, tracker_id) VALUES (?, 'bus', ?)").run(bob.id, clone).lastInsertRowid);
    expect((await s.call('tracker/delete', { hash: bob.hash, tracker_id: clone })).body.vehicles).toEqual([v]);
    expect(row(clone).deleted).toBe(0);
  });
});
