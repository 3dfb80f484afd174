/**
 * The trackers, devices and deviceState areas of the contract (docs/store.md): trackers and their
 * sources, the gateway's registry and unknown devices, each device's latest state; the same
 * answers on every engine.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DataStore } from '../../../src/store/contract.ts';
import type { TrackerRow } from '../../../src/store/trackers.ts';
import { engines, type FixtureSql } from './engines.ts';

describe.each(engines('users', 'tags', 'trackers', 'devices', 'deviceState'))('$name engine: trackers and devices', (engine) => {
  let data: DataStore;
  let sql: FixtureSql;
  let dispose: () => Promise<void>;
  let ann: number;
  let bob: number;
  beforeEach(async () => {
    ({ data, sql, dispose } = await engine.open());
    ann = await data.users.create({ login: 'ann@example.com', passwordHash: 'x', now: 0 });
    bob = await data.users.create({ login: 'bob@example.com', passwordHash: 'x', now: 0 });
  });
  afterEach(async () => dispose?.());

  const add = (userId: number, deviceId: string, label = deviceId) => data.trackers.add({ userId, deviceId, protocol: 'teltonika', label, tariffId: 1, now: 5000 });
  /** A department of the user (departments belong to a later area: fixture rows). */
  const department = async (userId: number, label: string) => (await sql('INSERT INTO departments (user_id, label) VALUES (?, ?) RETURNING id', userId, label))[0].id as number;
  const employee = async (userId: number, trackerId: number | null, departmentId: number | null = null) =>
    (await sql('INSERT INTO employees (user_id, tracker_id, first_name, department_id) VALUES (?, ?, ?, ?) RETURNING id', userId, trackerId, 'Eve', departmentId))[0].id as number;

  it('adds a tracker with its source and reads it back whole, only for its owner', async () => {
    const id = await data.trackers.add({
      userId: ann, deviceId: '356307042441013', protocol: 'teltonika', label: 'Van 1', model: 'fmb920', phone: '+15551234', tariffId: 1, hasGsm: false, bundledSim: true, now: 1000,
    });
    const row = await data.trackers.get(ann, id);
    expect(row).toEqual({
      id, user_id: ann, source_id: row!.source_id, label: 'Van 1', clone: 0, deleted: 0, status_listing_id: null, avatar_file_name: null,
      device_id: '356307042441013', model: 'fmb920', protocol: 'teltonika', blocked: 0, tariff_id: 1, phone: '+15551234', has_gsm: 0, bundled_sim: 1, corrupted: 0,
      first_seen: null, last_seen: null, source_creation_date: 1000, tariff_end_date: null, group_id: -1,
    } satisfies TrackerRow);
    expect(typeof row!.source_id).toBe('number');
    const plain = await add(ann, '123');
    expect(await data.trackers.get(ann, plain)).toMatchObject({ model: '', phone: null, has_gsm: 1, bundled_sim: 0, source_creation_date: 5000 });
    expect(await data.trackers.get(bob, id)).toBeUndefined();
    expect(await data.trackers.get(ann, 999999)).toBeUndefined();
    expect(await data.trackers.getAny(id)).toEqual(row);
    expect(await data.trackers.getAny(999999)).toBeUndefined();
    expect((await data.trackers.list(ann)).map((t) => t.id)).toEqual([id, plain]);
    expect(await data.trackers.list(bob)).toEqual([]);
    expect(await data.trackers.deviceExists('356307042441013')).toBe(true);
    expect(await data.trackers.deviceExists('356307042441014')).toBe(false);
    // A device id is registered once: the second source is refused and no tracker is left behind.
    await expect(add(bob, '123')).rejects.toThrow();
    expect(await data.trackers.list(bob)).toEqual([]);
  });

  it('clones a tracker to another user: one source, the original first; the owner\'s tariff moves only its own sources', async () => {
    const orig = await add(ann, 'dev-1', 'Mine');
    const other = await add(bob, 'dev-2');
    const row = (await data.trackers.get(ann, orig))!;
    const copy = await data.trackers.clone(row, bob, 'Shared');
    expect(await data.trackers.get(bob, copy)).toEqual({ ...row, id: copy, user_id: bob, label: 'Shared', clone: 1 });
    expect((await data.trackers.bySource(row.source_id)).map((t) => [t.id, t.user_id, t.clone])).toEqual([[orig, ann, 0], [copy, bob, 1]]);
    expect((await data.trackers.list(bob)).map((t) => t.id)).toEqual([other, copy]);
    const gold = await data.tariffs.copy(1, 'gold');
    await data.trackers.setOwnedSourcesTariff(bob, gold);
    expect((await data.trackers.get(bob, copy))?.tariff_id).toBe(1);
    expect((await data.trackers.get(bob, other))?.tariff_id).toBe(gold);
    await data.trackers.setOwnedSourcesTariff(ann, gold);
    expect((await data.trackers.get(bob, copy))?.tariff_id).toBe(gold);
    // A deleted clone leaves the source's list.
    await data.trackers.markDeleted(copy);
    expect((await data.trackers.bySource(row.source_id)).map((t) => t.id)).toEqual([orig]);
    expect(await data.trackers.bySource(999999)).toEqual([]);
  });

  it('blocks a source, changes its phone and APN, and finds a phone in use by another live source', async () => {
    const a = await data.trackers.add({ userId: ann, deviceId: 'a', protocol: 'gt06', label: 'a', phone: '+1000', tariffId: 1, now: 0 });
    const b = await add(ann, 'b');
    const [ra, rb] = [(await data.trackers.get(ann, a))!, (await data.trackers.get(ann, b))!];
    await data.trackers.setBlocked(ra.source_id, true);
    expect((await data.trackers.get(ann, a))?.blocked).toBe(1);
    await data.trackers.setBlocked(ra.source_id, false);
    expect((await data.trackers.get(ann, a))?.blocked).toBe(0);
    expect(await data.trackers.phoneInUse('+1000', rb.source_id)).toBe(true);
    expect(await data.trackers.phoneInUse('+1000', ra.source_id)).toBe(false);
    expect(await data.trackers.phoneInUse('+2000', rb.source_id)).toBe(false);
    await data.trackers.changePhone(rb.source_id, '+2000', { name: 'internet', user: 'u', password: 'p' });
    expect((await data.trackers.get(ann, b))?.phone).toBe('+2000');
    expect(await sql('SELECT phone, apn_name, apn_user, apn_password FROM sources WHERE id = ?', rb.source_id)).toEqual([{ phone: '+2000', apn_name: 'internet', apn_user: 'u', apn_password: 'p' }]);
    expect(await data.trackers.phoneInUse('+2000', ra.source_id)).toBe(true);
  });

  it('corrupts a tracker: deleted, its device id spoilt and phone cleared, so the device can be registered anew', async () => {
    const id = await data.trackers.add({ userId: ann, deviceId: '777', protocol: 'gt06', label: 'x', phone: '+3000', tariffId: 1, now: 0 });
    const other = await add(bob, '778');
    const row = (await data.trackers.get(ann, id))!;
    await data.trackers.corrupt(row);
    expect(await data.trackers.get(ann, id)).toBeUndefined();
    expect(await data.trackers.getAny(id)).toMatchObject({ deleted: 1, corrupted: 1, device_id: `corrupted-${row.source_id}-777`, phone: null });
    expect(await data.trackers.list(ann)).toEqual([]);
    expect(await data.trackers.deviceExists('777')).toBe(false);
    expect(await data.trackers.phoneInUse('+3000', (await data.trackers.get(bob, other))!.source_id)).toBe(false);
    const again = await add(ann, '777');
    expect((await data.trackers.get(ann, again))?.device_id).toBe('777');
  });

  it('relabels and deletes; a deleted tracker leaves its employee; the group is the employee\'s department', async () => {
    const id = await add(ann, 'd1', 'old');
    const lone = await add(ann, 'd2');
    await data.trackers.setLabel(id, 'new');
    expect((await data.trackers.get(ann, id))?.label).toBe('new');
    const dep = await department(ann, 'North');
    const e1 = await employee(ann, id, dep);
    await employee(ann, lone);
    expect((await data.trackers.list(ann)).map((t) => [t.id, t.group_id])).toEqual([[id, dep], [lone, 0]]);
    await data.trackers.markDeleted(id);
    expect(await data.trackers.get(ann, id)).toBeUndefined();
    expect(await data.trackers.getAny(id)).toMatchObject({ deleted: 1, group_id: -1 });
    expect(await sql('SELECT tracker_id FROM employees WHERE id = ?', e1)).toEqual([{ tracker_id: null }]);
    expect((await data.trackers.list(ann)).map((t) => t.id)).toEqual([lone]);
  });

  it('lists trackers with their tag bindings in ordinal order; the listing follows every change, from any connection', async () => {
    const a = await add(ann, 'a');
    const b = await add(ann, 'b');
    const [t1, t2] = [await data.tags.create(ann, 'one', '000000'), await data.tags.create(ann, 'two', '000000')];
    expect(await data.trackers.listing(ann)).toEqual({ trackers: await data.trackers.list(ann), bindings: new Map() });
    // Bindings are written by another area (fixture rows on the engine's own connection).
    await sql('INSERT INTO tracker_tags (tracker_id, tag_id, ordinal) VALUES (?, ?, 2), (?, ?, 1), (?, ?, 1)', a, t1, a, t2, b, t1);
    const listing = await data.trackers.listing(ann);
    expect(listing.bindings).toEqual(new Map([[a, [{ tag_id: t2, ordinal: 1 }, { tag_id: t1, ordinal: 2 }]], [b, [{ tag_id: t1, ordinal: 1 }]]]));
    expect(listing.trackers.map((t) => t.id)).toEqual([a, b]);
    await data.trackers.setLabel(b, 'renamed');
    expect((await data.trackers.listing(ann)).trackers.map((t) => t.label)).toEqual(['a', 'renamed']);
    await data.tags.delete(ann, t1);
    expect((await data.trackers.listing(ann)).bindings).toEqual(new Map([[a, [{ tag_id: t2, ordinal: 1 }]]]));
    await sql('UPDATE sources SET blocked = 1 WHERE id = ?', (await data.trackers.get(ann, a))!.source_id);
    expect((await data.trackers.list(ann)).map((t) => t.blocked)).toEqual([1, 0]);
    const dep = await department(ann, 'South');
    await employee(ann, a, dep);
    expect((await data.trackers.list(ann)).map((t) => t.group_id)).toEqual([dep, -1]);
    await data.trackers.markDeleted(a);
    expect(await data.trackers.listing(ann)).toEqual({ trackers: [expect.objectContaining({ id: b })], bindings: new Map() });
  });

  it('names what keeps a tracker from being deleted: its rules and vehicles, and the label of the user\'s first vehicle', async () => {
    const id = await add(ann, 'd');
    const free = await add(ann, 'e');
    expect(await data.trackers.dependents(id)).toEqual({ rules: [], vehicles: [] });
    expect(await data.trackers.vehicleLabel(ann, id)).toBeNull();
    const v2 = (await sql('INSERT INTO vehicles (user_id, label, tracker_id) VALUES (?, ?, ?) RETURNING id', ann, 'Truck', id))[0].id;
    const v3 = (await sql('INSERT INTO vehicles (user_id, label, tracker_id) VALUES (?, ?, ?) RETURNING id', bob, 'Other', id))[0].id;
    const r1 = (await sql('INSERT INTO rules (user_id, label) VALUES (?, ?) RETURNING id', ann, 'speeding'))[0].id;
    const r2 = (await sql('INSERT INTO rules (user_id, label) VALUES (?, ?) RETURNING id', ann, 'idle'))[0].id;
    await sql('INSERT INTO rule_trackers (rule_id, tracker_id) VALUES (?, ?), (?, ?)', r2, id, r1, id);
    expect(await data.trackers.dependents(id)).toEqual({ rules: [r1, r2], vehicles: [v2, v3] });
    expect(await data.trackers.dependents(free)).toEqual({ rules: [], vehicles: [] });
    expect(await data.trackers.vehicleLabel(ann, id)).toBe('Truck');
    expect(await data.trackers.vehicleLabel(bob, id)).toBe('Other');
    expect(await data.trackers.vehicleLabel(ann, free)).toBeNull();
  });

  it('the registry\'s version moves with every change of trackers and sources, not with a device\'s times', async () => {
    const v0 = await data.trackers.sourcesVersion();
    expect(await data.devices.version()).toBe(v0);
    const moved = async (step: () => Promise<unknown>) => {
      const before = await data.devices.version();
      await step();
      const after = await data.devices.version();
      expect(await data.trackers.sourcesVersion()).toBe(after);
      return after !== before;
    };
    let id = 0;
    expect(await moved(async () => (id = await add(ann, 'v')))).toBe(true);
    const row = (await data.trackers.get(ann, id))!;
    expect(await moved(() => data.trackers.setBlocked(row.source_id, true))).toBe(true);
    expect(await moved(() => data.trackers.setLabel(id, 'w'))).toBe(true);
    expect(await moved(() => data.trackers.changePhone(row.source_id, '+1', { name: '', user: '', password: '' }))).toBe(true);
    expect(await moved(() => data.trackers.clone(row, bob, 'c'))).toBe(true);
    expect(await moved(() => data.tags.create(ann, 't', '000000'))).toBe(true);
    expect(await moved(() => sql('UPDATE sources SET last_seen = 99, first_seen = 1 WHERE id = ?', row.source_id))).toBe(false);
    expect(await moved(() => data.trackers.vehicleLabel(ann, id))).toBe(false);
    expect(await moved(() => data.trackers.corrupt(row))).toBe(true);
  });

  it('the gateway\'s registry: every uncorrupted source with its live trackers, original first', async () => {
    const a = await add(ann, 'reg-a');
    const b = await data.trackers.add({ userId: ann, deviceId: 'reg-b', protocol: 'gt06', label: 'b', tariffId: 1, now: 0 });
    const c = await add(ann, 'reg-c');
    const [ra, rb, rc] = [(await data.trackers.get(ann, a))!, (await data.trackers.get(ann, b))!, (await data.trackers.get(ann, c))!];
    const copy = await data.trackers.clone(ra, bob, 'copy');
    const copy2 = await data.trackers.clone(ra, bob, 'copy 2');
    await data.trackers.setBlocked(rb.source_id, true);
    await data.trackers.markDeleted(copy);
    await data.trackers.markDeleted(b);
    await data.trackers.corrupt(rc);
    expect(await data.devices.sources()).toEqual([
      { id: ra.source_id, device_id: 'reg-a', protocol: 'teltonika', blocked: 0, tracker_ids: `${a},${copy2}` },
      { id: rb.source_id, device_id: 'reg-b', protocol: 'gt06', blocked: 1, tracker_ids: null },
    ]);
  });

  it('unknown devices: repeats count on one row per device and protocol, the newest kept, newest first', async () => {
    await data.devices.recordUnknown([]);
    expect(await data.devices.unknown()).toEqual([]);
    await data.devices.recordUnknown([
      { deviceId: 'x1', protocol: 'gt06', address: '10.0.0.1:5000', first: 100, last: 150, attempts: 2 },
      { deviceId: 'x2', protocol: 'gt06', address: '10.0.0.2:5000', first: 120, last: 130, attempts: 1 },
      { deviceId: 'x1', protocol: 'gt06', address: '10.0.0.9:5001', first: 140, last: 145, attempts: 3 },
      { deviceId: 'x1', protocol: 'h02', address: '10.0.0.3:5000', first: 90, last: 90, attempts: 1 },
    ]);
    expect(await data.devices.unknown()).toEqual([
      { device_id: 'x1', protocol: 'gt06', address: '10.0.0.9:5001', first_seen: 100, last_seen: 150, count: 5 },
      { device_id: 'x2', protocol: 'gt06', address: '10.0.0.2:5000', first_seen: 120, last_seen: 130, count: 1 },
      { device_id: 'x1', protocol: 'h02', address: '10.0.0.3:5000', first_seen: 90, last_seen: 90, count: 1 },
    ]);
    // An older attempt adds to the count without moving last_seen back.
    await data.devices.recordUnknown([{ deviceId: 'x2', protocol: 'gt06', address: 'a', first: 10, last: 20, attempts: 4 }]);
    expect((await data.devices.unknown())[1]).toEqual({ device_id: 'x2', protocol: 'gt06', address: 'a', first_seen: 120, last_seen: 130, count: 5 });
    // Ties of last_seen: the device listed later first; the trim keeps the newest.
    await data.devices.recordUnknown([
      { deviceId: 'y1', protocol: 'p', address: 'a', first: 200, last: 200, attempts: 1 },
      { deviceId: 'y2', protocol: 'p', address: 'a', first: 200, last: 200, attempts: 1 },
      { deviceId: 'y3', protocol: 'p', address: 'a', first: 200, last: 200, attempts: 1 },
    ], 4);
    expect((await data.devices.unknown()).map((u) => u.device_id)).toEqual(['y3', 'y2', 'y1', 'x1']);
    await data.devices.recordUnknown([{ deviceId: 'y1', protocol: 'p', address: 'b', first: 300, last: 300, attempts: 1 }], 2);
    expect((await data.devices.unknown()).map((u) => [u.device_id, u.count])).toEqual([['y1', 2], ['y3', 1]]);
    await data.devices.recordUnknown([{ deviceId: 'z', protocol: 'p', address: 'b', first: 1, last: 1, attempts: 1 }], 0);
    expect(await data.devices.unknown()).toEqual([]);
  });

  it('inside a transaction: a tracker and a batch of unknown devices are kept with it, or not at all', async () => {
    const attempt = { deviceId: 'u', protocol: 'p', address: 'a', first: 1, last: 1, attempts: 1 };
    const failure = new Error('refused');
    await expect(data.transaction(async (tx) => {
      await tx.trackers.add({ userId: ann, deviceId: 'in-tx', protocol: 'p', label: 'x', tariffId: 1, now: 0 });
      await tx.devices.recordUnknown([attempt]);
      expect((await tx.devices.unknown()).length).toBe(1);
      throw failure;
    })).rejects.toBe(failure);
    expect([await data.trackers.deviceExists('in-tx'), await data.devices.unknown()]).toEqual([false, []]);
    const id = await data.transaction(async (tx) => {
      await tx.devices.recordUnknown([attempt, attempt]);
      return tx.trackers.add({ userId: ann, deviceId: 'in-tx', protocol: 'p', label: 'x', tariffId: 1, now: 0 });
    });
    expect((await data.trackers.list(ann)).map((t) => t.id)).toEqual([id]);
    expect((await data.devices.unknown()).map((u) => u.count)).toEqual([2]);
  });

  it('a device\'s latest state: undefined until it sent something; malformed attributes are left out', async () => {
    const id = await add(ann, 'st');
    const { source_id } = (await data.trackers.get(ann, id))!;
    expect(await data.deviceState.get(source_id)).toBeUndefined();
    const attrs = JSON.stringify({ ignition: [true, 900], fuel: [41.5, 800], vin: ['WVW', 700], bad: [1], worse: 'x', nested: [{ a: 1 }, 5], late: [3, 'soon'] });
    await sql(
      'INSERT INTO device_state (source_id, fix_time, lat, lng, alt, speed, course, satellites, precision, last_time, attrs, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      source_id, 1000, 52.5, 13.25, 34.5, 61.5, 270, 9, 4.5, 1200, attrs, 1300,
    );
    expect(await data.deviceState.get(source_id)).toEqual({
      sourceId: source_id, fixTime: 1000, lat: 52.5, lng: 13.25, alt: 34.5, speed: 61.5, course: 270, satellites: 9, precision: 4.5, lastTime: 1200,
      attrs: { ignition: [true, 900], fuel: [41.5, 800], vin: ['WVW', 700] },
    });
    // A device that sent only non-GNSS records: no fix; unreadable attributes read as none.
    await sql('INSERT INTO device_state (source_id, last_time, attrs, updated) VALUES (?, ?, ?, ?)', source_id + 1000, 50, 'not json', 50);
    expect(await data.deviceState.get(source_id + 1000)).toEqual({
      sourceId: source_id + 1000, fixTime: null, lat: null, lng: null, alt: null, speed: null, course: null, satellites: null, precision: null, lastTime: 50, attrs: {},
    });
  });
});
