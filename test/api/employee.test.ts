/** Employees over real HTTP (issue 4; spec: Employee resource, Employees, Limits). docs/employees.md. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BATCH_ROWS } from '../../src/imports/batch.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
let sub: { id: number; hash: string };
let devices = 0;
beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com');
  bob = await s.user('bob@example.com');
  sub = await s.user('sub@example.com', { parent: 'ann@example.com', rights: ['employee_update'] });
});
afterAll(() => s.close());

const tracker = (userId = ann.id, label = 'Truck') => s.addTracker(userId, `86100000000${String(++devices).padStart(4, '0')}`, { label });
const label = (trackerId: number) => s.store.trackers.getAny(trackerId)!.label;
const count = (userId = ann.id) => s.store.employees.list(userId).length;
const create = async (employee: Record<string, unknown>, extra: Record<string, unknown> = {}, hash = ann.hash) => s.call('employee/create', { hash, employee, ...extra });
const read = async (id: number, hash = ann.hash) => (await s.call('employee/read', { hash, employee_id: id })).body.value;
const groupId = async (trackerId: number, hash = ann.hash) => (await s.call('tracker/list', { hash })).body.list.find((t: any) => t.id === trackerId).group_id;

describe('employee/create, read, list', () => {
  it('creates a minimal employee with the defaults of the spec', async () => {
    const r = await create({ first_name: 'Ann' });
    expect(r.body).toEqual({ success: true, id: expect.any(Number) });
    expect(await read(r.body.id)).toEqual({
      id: r.body.id, tracker_id: null, first_name: 'Ann', middle_name: '', last_name: '', email: '', phone: '', driver_license_number: '', driver_license_cats: '',
      driver_license_valid_till: null, hardware_key: null, icon_id: null, avatar_file_name: null, department_id: null, location: null, personnel_number: '',
      tags: [], fuel_consumption: 0, fuel_cost: 0, fields: {}, driver_license_issue_date: null, ssn: '', // documented (issue 23)
    });
  });
  it('round-trips every member; icon_id, avatar_file_name and id are ignored', async () => {
    const dept = (await s.call('department/create', { hash: ann.hash, department: { label: 'Drivers' } })).body.id;
    const t1 = (await s.call('tag/create', { hash: ann.hash, tag: { name: 'night' } })).body.id;
    const t2 = (await s.call('tag/create', { hash: ann.hash, tag: { name: 'day' } })).body.id;
    const full = {
      first_name: 'Jon', middle_name: 'Q', last_name: 'Public', email: 'jon@example.com', phone: '491701234567', driver_license_number: 'B072RRE2I55',
      driver_license_cats: 'B, C', driver_license_valid_till: '2030-02-28', driver_license_issue_date: '2020-02-28', ssn: '123-45-6789', hardware_key: 'A1B2C3', department_id: dept,
      location: { lat: 52.52, lng: 13.405, address: 'Unter den Linden 1, Berlin' }, personnel_number: 'P-001', tags: [t2, t1], fuel_consumption: 7.5, fuel_cost: 1.89,
    };
    const r = await create({ ...full, id: 5, icon_id: 9, avatar_file_name: 'x.png' });
    expect(r.body.success).toBe(true);
    expect(await read(r.body.id)).toEqual({ ...full, id: r.body.id, tracker_id: null, icon_id: null, avatar_file_name: null, tags: [t1, t2].sort((a, b) => a - b), fields: {} });
    const list = (await s.call('employee/list', { hash: ann.hash })).body.list;
    expect(list.find((e: any) => e.id === r.body.id)).toEqual(await read(r.body.id));
    expect(list.map((e: any) => e.id)).toEqual([...list.map((e: any) => e.id)].sort((a: number, b: number) => a - b));
  });
  it('accepts the limits exactly', async () => {
    const r = await create({
      first_name: 'f'.repeat(100), middle_name: 'm'.repeat(100), last_name: 'l'.repeat(100), email: `${'e'.repeat(88)}@example.com`, phone: '1'.repeat(32),
      driver_license_number: 'n'.repeat(32), driver_license_cats: 'c'.repeat(32), hardware_key: 'h'.repeat(64), personnel_number: 'p'.repeat(15),
    });
    expect(r.body.success).toBe(true);
  });
  it('a form-encoded request works too (nested object as JSON text)', async () => {
    const body = new URLSearchParams({ hash: ann.hash, employee: JSON.stringify({ first_name: 'Form', fuel_cost: 2 }) });
    const r = await s.call('employee/create', {}, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString() });
    expect(r.body.success).toBe(true);
    expect((await read(r.body.id)).fuel_cost).toBe(2);
  });
  it('a sub-user works on its master\'s employees', async () => {
    const r = await create({ first_name: 'Made by sub' }, {}, sub.hash);
    expect(r.body.success).toBe(true);
    expect(s.store.employees.get(ann.id, r.body.id)!.first_name).toBe('Made by sub');
    expect((await read(r.body.id, sub.hash)).first_name).toBe('Made by sub');
  });
});

describe('field rules and limits: 7 naming the parameter, nothing created', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['first_name missing', { first_name: undefined }, 'employee.first_name'],
    ['first_name empty', { first_name: '' }, 'employee.first_name'],
    ['first_name blank', { first_name: '   ' }, 'employee.first_name'],
    ['first_name 101', { first_name: 'x'.repeat(101) }, 'employee.first_name'],
    ['middle_name 101', { middle_name: 'x'.repeat(101) }, 'employee.middle_name'],
    ['middle_name null', { middle_name: null }, 'employee.middle_name'],
    ['last_name 101', { last_name: 'x'.repeat(101) }, 'employee.last_name'],
    ['email invalid', { email: 'not-an-email' }, 'employee.email'],
    ['email 101', { email: `${'e'.repeat(89)}@example.com` }, 'employee.email'],
    ['phone with plus', { phone: '+491701234567' }, 'employee.phone'],
    ['phone 33', { phone: '1'.repeat(33) }, 'employee.phone'],
    ['driver_license_number 33', { driver_license_number: 'x'.repeat(33) }, 'employee.driver_license_number'],
    ['driver_license_cats 33', { driver_license_cats: 'x'.repeat(33) }, 'employee.driver_license_cats'],
    ['driver_license_valid_till impossible', { driver_license_valid_till: '2030-02-30' }, 'employee.driver_license_valid_till'],
    ['driver_license_valid_till format', { driver_license_valid_till: '28.02.2030' }, 'employee.driver_license_valid_till'],
    ['driver_license_valid_till month 13', { driver_license_valid_till: '2030-13-01' }, 'employee.driver_license_valid_till'],
    ['hardware_key 65', { hardware_key: 'x'.repeat(65) }, 'employee.hardware_key'],
    ['personnel_number 16', { personnel_number: 'x'.repeat(16) }, 'employee.personnel_number'],
    ['location lat', { location: { lat: 91, lng: 0 } }, 'employee.location.lat'],
    ['location lng', { location: { lat: 0, lng: -181 } }, 'employee.location.lng'],
    ['location not an object', { location: 'Berlin' }, 'employee.location'],
    ['tags not ids', { tags: ['x'] }, 'employee.tags.0'],
    ['fuel_consumption negative', { fuel_consumption: -1 }, 'employee.fuel_consumption'],
    ['fuel_cost text', { fuel_cost: 'cheap' }, 'employee.fuel_cost'],
    ['tracker_id zero', { tracker_id: 0 }, 'employee.tracker_id'],
    ['department_id text', { department_id: 'x' }, 'employee.department_id'],
  ];
  it.each(cases)('%s', async (_, bad, parameter) => {
    const before = count();
    const r = await create({ first_name: 'Valid', ...bad });
    expect(r.status).toBe(400);
    expect(r.body.status.code).toBe(7);
    expect(r.body.errors.map((e: any) => e.parameter)).toContain(parameter);
    expect(count()).toBe(before);
  });
  it('employee null or missing', async () => {
    for (const employee of [null, undefined]) {
      const r = await s.call('employee/create', { hash: ann.hash, employee });
      expect(r.body.status.code).toBe(7);
      expect(r.body.errors[0].parameter).toBe('employee');
    }
  });
  it('update applies the same rules', async () => {
    const id = (await create({ first_name: 'Rules' })).body.id;
    const r = await s.call('employee/update', { hash: ann.hash, employee: { id, email: 'nope', phone: '+1' } });
    expect(r.body.status.code).toBe(7);
    expect(r.body.errors.map((e: any) => e.parameter).sort()).toEqual(['employee.email', 'employee.phone']);
    expect((await s.call('employee/update', { hash: ann.hash, employee: { first_name: 'No id' } })).body.errors[0].parameter).toBe('employee.id');
    expect((await read(id)).email).toBe('');
  });
});

describe('references: department, tags, tracker of the owner only (201)', () => {
  it("another user's department, tag or tracker is not found, and nothing is created", async () => {
    const bobDept = (await s.call('department/create', { hash: bob.hash, department: { label: 'Bob' } })).body.id;
    const bobTag = (await s.call('tag/create', { hash: bob.hash, tag: { name: 'bob' } })).body.id;
    const bobTracker = tracker(bob.id, 'Bob truck');
    const before = count();
    for (const [bad, what] of [[{ department_id: bobDept }, `department ${bobDept}`], [{ tags: [bobTag] }, `tags ${bobTag}`], [{ tracker_id: bobTracker }, `tracker ${bobTracker}`], [{ department_id: 999999 }, 'department 999999']] as const) {
      const r = await create({ first_name: 'X', ...bad });
      expect(r.status).toBe(404);
      expect(r.body.status).toEqual({ code: 201, description: `Not found in the database: ${what}` });
    }
    expect(count()).toBe(before);
    expect(label(bobTracker)).toBe('Bob truck');
  });
  it('a deleted tracker is not found', async () => {
    const t = tracker();
    s.store.trackers.markDeleted(t);
    expect((await create({ first_name: 'X', tracker_id: t })).body.status.code).toBe(201);
  });
  it("another user's employee is not found by read, update, delete", async () => {
    const id = (await create({ first_name: 'Private' })).body.id;
    for (const [call, p] of [['employee/read', { employee_id: id }], ['employee/update', { employee: { id, first_name: 'Stolen' } }], ['employee/delete', { employee_id: id }]] as const) {
      const r = await s.call(call, { hash: bob.hash, ...p });
      expect(r.body).toEqual({ success: false, status: { code: 201, description: `Not found in the database: employee ${id}` } });
    }
    expect((await s.call('employee/list', { hash: bob.hash })).body.list.map((e: any) => e.id)).not.toContain(id);
    expect(s.store.employees.get(ann.id, id)!.first_name).toBe('Private');
    expect((await s.call('employee/read', { hash: ann.hash, employee_id: 999999 })).body.status.code).toBe(201);
  });
});

describe('tracker labels (spec: Employees, Side effects) and group_id', () => {
  it('create with a tracker renames it to the full name; group_id follows the department', async () => {
    const t = tracker();
    expect(await groupId(t)).toBe(-1);
    const id = (await create({ first_name: 'Eva', middle_name: '', last_name: 'Lind', tracker_id: t })).body.id;
    expect(label(t)).toBe('Eva Lind');
    expect(await groupId(t)).toBe(0);
    const dept = (await s.call('department/create', { hash: ann.hash, department: { label: 'North' } })).body.id;
    await s.call('employee/update', { hash: ann.hash, employee: { id, department_id: dept } });
    expect(await groupId(t)).toBe(dept);
    expect((await s.call('tracker/read', { hash: ann.hash, tracker_id: t })).body.value.group_id).toBe(dept);
    expect(s.store.employees.byTracker(t)!.id).toBe(id);
  });
  it('247 when the tracker has another employee; force_reassign moves it', async () => {
    const t = tracker();
    const first = (await create({ first_name: 'First', tracker_id: t })).body.id;
    const before = count();
    const r = await create({ first_name: 'Second', tracker_id: t });
    expect(r.status).toBe(409);
    expect(r.body.status.code).toBe(247);
    expect(r.body.employee_id).toBe(first);
    expect(count()).toBe(before);
    expect(label(t)).toBe('First');
    const forced = (await create({ first_name: 'Second', tracker_id: t }, { force_reassign: true })).body.id;
    expect((await read(first)).tracker_id).toBe(null);
    expect((await read(forced)).tracker_id).toBe(t);
    expect(label(t)).toBe('Second');
    // update too
    const third = (await create({ first_name: 'Third' })).body.id;
    expect((await s.call('employee/update', { hash: ann.hash, employee: { id: third, tracker_id: t } })).body.status.code).toBe(247);
    expect((await read(third)).tracker_id).toBe(null);
    expect((await s.call('employee/update', { hash: ann.hash, employee: { id: third, tracker_id: t }, force_reassign: true })).body.success).toBe(true);
    expect((await read(forced)).tracker_id).toBe(null);
    expect(label(t)).toBe('Third');
  });
  it('update with a changed tracker prefixes the former one with "Deleted " and renames the new one', async () => {
    const [a, b] = [tracker(), tracker()];
    const id = (await create({ first_name: 'Max', last_name: 'Roe', tracker_id: a })).body.id;
    expect((await s.call('employee/update', { hash: ann.hash, employee: { id, tracker_id: b } })).body).toEqual({ success: true });
    expect([label(a), label(b)]).toEqual(['Deleted Max Roe', 'Max Roe']);
    expect(await groupId(a)).toBe(-1);
    // unchanged tracker, changed name: the label follows the name
    await s.call('employee/update', { hash: ann.hash, employee: { id, last_name: 'Doe' } });
    expect(label(b)).toBe('Max Doe');
    // tracker removed
    await s.call('employee/update', { hash: ann.hash, employee: { id, tracker_id: null } });
    expect(label(b)).toBe('Deleted Max Doe');
    // back to a: the prefix goes and is not doubled later
    await s.call('employee/update', { hash: ann.hash, employee: { id, tracker_id: a } });
    expect(label(a)).toBe('Max Doe');
    await s.call('employee/update', { hash: ann.hash, employee: { id, tracker_id: b } });
    expect(label(a)).toBe('Deleted Max Doe');
    expect(label(b)).toBe('Max Doe');
  });
  it('delete prefixes the tracker label and frees the tracker', async () => {
    const t = tracker();
    const id = (await create({ first_name: 'Gone', tracker_id: t })).body.id;
    expect((await s.call('employee/delete', { hash: ann.hash, employee_id: id })).body).toEqual({ success: true });
    expect(label(t)).toBe('Deleted Gone');
    expect(await groupId(t)).toBe(-1);
    expect((await s.call('employee/read', { hash: ann.hash, employee_id: id })).body.status.code).toBe(201);
    expect(s.store.employees.byTracker(t)).toBe(undefined);
    expect((await s.call('employee/delete', { hash: ann.hash, employee_id: id })).body.status.code).toBe(201);
  });
  it('a tracker that gets deleted leaves its employee', async () => {
    const orig = tracker();
    const clone = s.store.trackers.clone(s.store.trackers.getAny(orig)!, ann.id, 'clone');
    const id = (await create({ first_name: 'Cloned', tracker_id: clone })).body.id;
    expect((await s.call('tracker/delete', { hash: ann.hash, tracker_id: clone })).body.success).toBe(true);
    expect((await read(id)).tracker_id).toBe(null);
  });
  it('byTracker exposes the fuel consumption for telemetry', async () => {
    const t = tracker();
    await create({ first_name: 'Fuel', tracker_id: t, fuel_consumption: 9.25 });
    expect(s.store.employees.byTracker(t)!.fuel_consumption).toBe(9.25);
  });
});

describe('employee/update and delete', () => {
  it('members present replace, null clears, absent stay; icon and avatar stay', async () => {
    const t1 = (await s.call('tag/create', { hash: ann.hash, tag: { name: 'keep' } })).body.id;
    const id = (await create({ first_name: 'Up', email: 'up@example.com', hardware_key: 'K1', tags: [t1], location: { lat: 1, lng: 2, address: 'Here' } })).body.id;
    s.sql.prepare("UPDATE employees SET icon_id = 3, avatar_file_name = 'a.png' WHERE id = ?").run(id);
    const r = await s.call('employee/update', { hash: ann.hash, employee: { id, last_name: 'Date', hardware_key: null, icon_id: 7, avatar_file_name: 'b.png' } });
    expect(r.body).toEqual({ success: true });
    const e = await read(id);
    expect(e).toMatchObject({ first_name: 'Up', last_name: 'Date', email: 'up@example.com', hardware_key: null, tags: [t1], location: { lat: 1, lng: 2, address: 'Here' }, icon_id: 3, avatar_file_name: 'a.png' });
    await s.call('employee/update', { hash: ann.hash, employee: { id, location: null, tags: [] } });
    expect(await read(id)).toMatchObject({ location: null, tags: [] });
  });
  it('delete removes tags and custom field values', async () => {
    const t = (await s.call('tag/create', { hash: ann.hash, tag: { name: 'del' } })).body.id;
    const id = (await create({ first_name: 'Del', tags: [t] })).body.id;
    await s.call('employee/delete', { hash: ann.hash, employee_id: id });
    expect(s.store.tags.entityTags('employee', [id]).get(id)).toEqual([]);
  });
});

describe('custom fields', () => {
  it('validates, stores and shows fields of employees', async () => {
    const f = (await s.call('entity/fields/create', { hash: ann.hash, field: { entity_type: 'employee', label: 'Shirt size', type: 'text' } })).body.id;
    const id = (await create({ first_name: 'Fields', fields: { [f]: { type: 'text', value: 'XL' } } })).body.id;
    expect((await read(id)).fields).toEqual({ [f]: { type: 'text', value: 'XL' } });
    const bad = await create({ first_name: 'Bad', fields: { [f]: { type: 'number', value: 1 } } });
    expect(bad.body.status.code).toBe(7);
    expect(bad.body.errors[0].parameter).toBe(`employee.fields.${f}.type`);
    await s.call('entity/fields/delete', { hash: ann.hash, field_id: f });
  });
});

describe('addresses from the geocoder', () => {
  it('a location without address gets the geocoder\'s address; a given address is kept', async () => {
    const point = { lat: 48.8566, lng: 2.3522 };
    const id = (await create({ first_name: 'Geo', location: point })).body.id;
    // The offline geocoder's nearest settlement.
    expect((await read(id)).location.address).toBe('Paris, France');
    const kept = (await create({ first_name: 'Geo', location: { ...point, address: 'Mine' } })).body.id;
    expect((await read(kept)).location.address).toBe('Mine');
  });
});

describe('employee/batch_convert (checks and converts; creates nothing)', () => {
  const convert = (p: Record<string, unknown>) => s.call('employee/batch_convert', { hash: ann.hash, ...p });
  it('default fields first_name, middle_name, last_name, email, phone; per-row errors', async () => {
    const before = count();
    const batch = ['Ann\t\tSmith\tann@example.com\t+49 (170) 123-4567', '', 'Bob\tJ\tDoe\t\t', 'Cy\t\t\tnot-mail\t', '\t\t\t\t123', '"Quoted\tTab"\t\t\t\t5'].join('\r\n');
    const r = await convert({ batch });
    expect(r.body.success).toBe(true);
    expect(r.body.limit_exceeded).toBe(false);
    const [ok, noContact, badMail, noName, quoted] = r.body.list;
    expect(r.body.list).toHaveLength(5);
    expect(ok).toEqual({
      id: null, tracker_id: null, first_name: 'Ann', middle_name: '', last_name: 'Smith', email: 'ann@example.com', phone: '491701234567', driver_license_number: '',
      driver_license_cats: '', driver_license_valid_till: null, hardware_key: null, icon_id: null, avatar_file_name: null, department_id: null, location: null,
      personnel_number: '', tags: [], fuel_consumption: 0, fuel_cost: 0, fields: {}, driver_license_issue_date: null, ssn: '',
    });
    expect(noContact.errors).toEqual([{ parameter: 'phone', error: 'an employee needs a phone or an e-mail' }]);
    expect(badMail.errors.map((e: any) => e.parameter)).toEqual(['email']);
    expect(badMail.email).toBe('not-mail');
    expect(noName.errors.map((e: any) => e.parameter)).toEqual(['first_name']);
    expect(quoted.first_name).toBe('Quoted\tTab');
    expect(quoted.errors).toBe(undefined);
    expect(count()).toBe(before);
  });
  it('fields in any order, numbers with decimal commas, dates, coordinates', async () => {
    const r = await convert({
      batch: 'Lee\t52,52\t13.405\tBerlin\t2031-01-31\t8,5\tlee@example.com\nMo\t52.5\t\t\t2031-02-31\tx\tmo@example.com\nPat\t48.8566\t2.3522\t\t\t\tpat@example.com',
      fields: ['first_name', 'lat', 'lng', 'address', 'driver_license_valid_till', 'fuel_consumption', 'email'],
    });
    const [lee, mo] = r.body.list;
    expect(lee).toMatchObject({ first_name: 'Lee', location: { lat: 52.52, lng: 13.405, address: 'Berlin' }, driver_license_valid_till: '2031-01-31', fuel_consumption: 8.5 });
    expect(lee.errors).toBe(undefined);
    expect(mo.errors.map((e: any) => e.parameter).sort()).toEqual(['driver_license_valid_till', 'fuel_consumption', 'lng']);
    // coordinates without an address get one from the geocoder
    expect(r.body.list[2].location).toEqual({ lat: 48.8566, lng: 2.3522, address: 'Paris, France' });
  });
  it('an address without coordinates is geocoded (a row error when nothing is found)', async () => {
    const r = await convert({ batch: 'Geo\tgeo@example.com\tParis\nNone\tnone@example.com\tQqxzzv Nowhere', fields: ['first_name', 'email', 'address'], geocoder: 'geocoder_type_1' });
    const [paris, none] = r.body.list;
    expect(paris.errors).toBe(undefined);
    expect(paris.location.address).toBe('Paris');
    expect(paris.location.lat).toBeCloseTo(48.85, 1);
    expect(paris.location.lng).toBeCloseTo(2.35, 1);
    expect(none.errors).toEqual([{ parameter: 'address', error: 'the geocoder found no such address' }]);
  });
  it(`limit_exceeded past ${MAX_BATCH_ROWS} rows`, async () => {
    const batch = Array.from({ length: MAX_BATCH_ROWS + 1 }, (_, i) => `N${i}\t\t\t\t${1000 + i}`).join('\n');
    const r = await convert({ batch });
    expect(r.body.list).toHaveLength(MAX_BATCH_ROWS);
    expect(r.body.limit_exceeded).toBe(true);
    expect(r.body.list[MAX_BATCH_ROWS - 1].first_name).toBe(`N${MAX_BATCH_ROWS - 1}`);
  });
  it('7 for bad fields, geocoder, default_radius, a missing batch; 201 for file_id; 234 for binary data or too many cells', async () => {
    for (const [p, parameter] of [
      [{ batch: 'a', fields: ['first_name', 'salary'] }, 'fields.1'],
      [{ batch: 'a', fields: ['first_name', 'first_name'] }, 'fields'],
      [{ batch: 'a', fields: [] }, 'fields'],
      [{ batch: 'a', geocoder: 'bing' }, 'geocoder'], // 'google' is an alias of geocoder_type_1 since issue 23
      [{ batch: 'a', default_radius: 0 }, 'default_radius'],
      [{}, 'batch'],
    ] as const) {
      const r = await convert(p);
      expect(r.body.status.code, JSON.stringify(p)).toBe(7);
      expect(r.body.errors[0].parameter).toBe(parameter);
    }
    expect((await convert({ batch: 'a', file_id: 'f1' })).body.status).toEqual({ code: 201, description: 'Not found in the database: file f1 (no parsed spreadsheet with this id)' });
    const bin = await convert({ batch: 'PK\u0003\u0004\u0000zip' });
    expect(bin.body.status.code).toBe(234);
    expect((await convert({ batch: 'Ann\t\t\ta@example.com\t1\textra' })).body.status.code).toBe(234);
    expect((await convert({ batch: '' })).body).toEqual({ success: true, list: [], limit_exceeded: false });
  });
});
