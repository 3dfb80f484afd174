/** Departments over real HTTP (issue 4; spec: Department resource, Departments). docs/employees.md. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com');
  bob = await s.user('bob@example.com');
});
afterAll(() => s.close());

const create = async (department: unknown, hash = ann.hash) => s.call('department/create', { hash, department });
const list = async (hash = ann.hash) => (await s.call('department/list', { hash })).body.list;
const geoVersion = () => (s.sql.prepare("SELECT value FROM versions WHERE name = 'geo'").pluck().get() as number);

describe('department/create, list, update, delete', () => {
  it('full cycle with the spec shape', async () => {
    const geo = geoVersion();
    const a = await create({ label: 'North', location: { lat: 59.9, lng: 30.3, address: 'Nevsky 1', radius: 500 } });
    expect(a.body).toEqual({ success: true, id: expect.any(Number) });
    expect(geoVersion()).toBeGreaterThan(geo);
    const b = await create({ label: 'South', id: 77 });
    expect(await list()).toEqual([
      { id: a.body.id, label: 'North', location: { lat: 59.9, lng: 30.3, address: 'Nevsky 1', radius: 500 } },
      { id: b.body.id, label: 'South', location: null },
    ]);
    expect((await s.call('department/update', { hash: ann.hash, department: { id: a.body.id, label: 'Nord' } })).body).toEqual({ success: true });
    expect((await list())[0]).toEqual({ id: a.body.id, label: 'Nord', location: { lat: 59.9, lng: 30.3, address: 'Nevsky 1', radius: 500 } });
    await s.call('department/update', { hash: ann.hash, department: { id: a.body.id, location: null } });
    expect((await list())[0]).toEqual({ id: a.body.id, label: 'Nord', location: null });
    expect((await s.call('department/delete', { hash: ann.hash, department_id: b.body.id })).body).toEqual({ success: true });
    expect((await list()).map((d: any) => d.id)).toEqual([a.body.id]);
  });
  it('a location without address gets the geocoder\'s address; radius may be absent', async () => {
    const point = { lat: 48.8566, lng: 2.3522 };
    const id = (await create({ label: 'Paris', location: point })).body.id;
    const d = (await list()).find((x: any) => x.id === id);
    expect(d.location).toEqual({ ...point, address: 'Paris, France', radius: null });
  });
  it('7 naming the parameter; nothing created or changed', async () => {
    const id = (await create({ label: 'Keep' })).body.id;
    const before = s.store.departments.list(ann.id).length;
    for (const [department, parameter] of [
      [{}, 'department.label'],
      [{ label: ' ' }, 'department.label'],
      [{ label: 'x'.repeat(101) }, 'department.label'],
      [{ label: 'L', location: { lat: 91, lng: 0 } }, 'department.location.lat'],
      [{ label: 'L', location: { lat: 0, lng: 181 } }, 'department.location.lng'],
      [{ label: 'L', location: { lat: 0, lng: 0, radius: 0 } }, 'department.location.radius'],
      [{ label: 'L', location: { lat: 0, lng: 0, radius: 1.5 } }, 'department.location.radius'],
      [null, 'department'],
    ] as const) {
      const r = await create(department);
      expect(r.body.status.code, JSON.stringify(department)).toBe(7);
      expect(r.body.errors[0].parameter).toBe(parameter);
    }
    expect(s.store.departments.list(ann.id).length).toBe(before);
    const u = await s.call('department/update', { hash: ann.hash, department: { id, label: '' } });
    expect(u.body.errors[0].parameter).toBe('department.label');
    expect((await s.call('department/update', { hash: ann.hash, department: { label: 'x' } })).body.errors[0].parameter).toBe('department.id');
    expect((await s.call('department/delete', { hash: ann.hash })).body.errors[0].parameter).toBe('department_id');
    expect(s.store.departments.get(ann.id, id)!.label).toBe('Keep');
  });
  it("another user's department is not found (201) and stays", async () => {
    const id = (await create({ label: 'Ann only' })).body.id;
    expect(await list(bob.hash)).toEqual([]);
    for (const [call, p] of [['department/update', { department: { id, label: 'Bob' } }], ['department/delete', { department_id: id }]] as const) {
      const r = await s.call(call, { hash: bob.hash, ...p });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ success: false, status: { code: 201, description: `Not found in the database: department ${id}` } });
    }
    expect((await s.call('department/delete', { hash: ann.hash, department_id: 999999 })).body.status.code).toBe(201);
    expect(s.store.departments.get(ann.id, id)!.label).toBe('Ann only');
  });
  it('deleting a department keeps its employees, without a department (group_id 0)', async () => {
    const dept = (await create({ label: 'Closing' })).body.id;
    const t = s.addTracker(ann.id, '862000000000001');
    const e = (await s.call('employee/create', { hash: ann.hash, employee: { first_name: 'Stay', department_id: dept, tracker_id: t } })).body.id;
    const group = async () => (await s.call('tracker/list', { hash: ann.hash })).body.list.find((x: any) => x.id === t).group_id;
    expect(await group()).toBe(dept);
    expect((await s.call('department/delete', { hash: ann.hash, department_id: dept })).body.success).toBe(true);
    expect((await s.call('employee/read', { hash: ann.hash, employee_id: e })).body.value.department_id).toBe(null);
    expect(await group()).toBe(0);
  });
  it('a sub-user with employee_update manages the master\'s departments', async () => {
    const sub = await s.user('sub@example.com', { parent: 'ann@example.com', rights: ['employee_update'] });
    const id = (await create({ label: 'By sub' }, sub.hash)).body.id;
    expect(s.store.departments.get(ann.id, id)!.label).toBe('By sub');
    expect((await list(sub.hash)).map((d: any) => d.id)).toContain(id);
  });
});
