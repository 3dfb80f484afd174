/**
 * Create and update calls as the official JavaScript client sends them (issue 10, item 1):
 * form-urlencoded, nested values as JSON strings, under /api-v2/, with empty lists where the
 * spec puts no lower bound (`zone={"label":...,"tags":[]}` for every new zone).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let hash: string;
let userId: number;
beforeAll(async () => {
  s = await startTestServer();
  ({ id: userId, hash } = await s.user('jsclient@example.com'));
});
afterAll(() => s.close());

/** POST /api-v2/<path> the way the JS client encodes parameters. */
async function jsClient(path: string, params: Record<string, unknown>): Promise<any> {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries({ hash, ...params })) form.set(k, typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
  const res = await fetch(`${s.url}/api-v2/${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' }, body: form.toString() });
  return res.json();
}

const berlin = { lat: 52.52, lng: 13.405 };
const square = [
  { lat: 52.5, lng: 13.4, node: false },
  { lat: 52.5, lng: 13.5, node: false },
  { lat: 52.6, lng: 13.5, node: false },
  { lat: 52.6, lng: 13.4, node: false },
];

describe('zones as the JS client sends them', () => {
  it('zone/create of a circle with tags: [] succeeds and the zone has no tags', async () => {
    const r = await jsClient('zone/create', { zone: { label: 'Depot', type: 'circle', address: 'Alexanderplatz', radius: 150, center: berlin, tags: [] } });
    expect(r).toEqual({ success: true, id: expect.any(Number) });
    const list = (await jsClient('zone/list', {})).list;
    expect(list.find((z: any) => z.id === r.id)).toMatchObject({ label: 'Depot', tags: [] });
  });
  it('zone/create of a polygon with tags: [] and its points', async () => {
    const r = await jsClient('zone/create', { zone: { label: 'Yard', type: 'polygon', address: '', tags: [] }, points: square });
    expect(r).toEqual({ success: true, id: expect.any(Number) });
  });
  it('zone/update with tags: [] clears the tags', async () => {
    const tag = (await jsClient('tag/create', { tag: { name: 'North' } })).id;
    const c = await jsClient('zone/create', { zone: { label: 'Gate', type: 'circle', address: '', radius: 50, center: berlin, tags: [tag] } });
    expect(c.success).toBe(true);
    expect(await jsClient('zone/update', { zone: { id: c.id, label: 'Gate 2', type: 'circle', address: '', radius: 60, center: berlin, tags: [] } })).toEqual({ success: true });
    const z = (await jsClient('zone/list', {})).list.find((x: any) => x.id === c.id);
    expect(z).toMatchObject({ label: 'Gate 2', radius: 60, tags: [] });
  });
  it('zone/delete with zone_ids: [] deletes nothing', async () => {
    const before = (await jsClient('zone/list', {})).list.length;
    expect(await jsClient('zone/delete', { zone_ids: [] })).toEqual({ success: true });
    expect((await jsClient('zone/list', {})).list.length).toBe(before);
  });
});

describe('other create/update bodies as the JS client sends them', () => {
  it('place/create and place/update', async () => {
    const c = await jsClient('place/create', { place: { label: 'Shop', description: '', location: { ...berlin, address: 'Alexanderplatz 1', radius: 100 }, fields: {} } });
    expect(c).toEqual({ success: true, id: expect.any(Number) });
    expect(await jsClient('place/update', { place: { id: c.id, label: 'Shop 2', description: '', location: { ...berlin, address: 'Alexanderplatz 1', radius: 120 }, fields: {} } })).toEqual({ success: true });
  });
  it('tag/create and tag/update', async () => {
    const c = await jsClient('tag/create', { tag: { name: 'South', color: 'FF0000' } });
    expect(c).toEqual({ success: true, id: expect.any(Number) });
    expect(await jsClient('tag/update', { tag: { id: c.id, name: 'Süd', color: '00FF00' } })).toEqual({ success: true });
  });
  it('department/create and department/update', async () => {
    const c = await jsClient('department/create', { department: { label: 'Field team', location: null } });
    expect(c).toEqual({ success: true, id: expect.any(Number) });
    expect(await jsClient('department/update', { department: { id: c.id, label: 'Field team 2', location: { ...berlin, address: 'x', radius: 300 } } })).toEqual({ success: true });
  });
  it('employee/create and employee/update with tags: []', async () => {
    const employee = { first_name: 'Ann', middle_name: '', last_name: 'Lee', email: '', phone: '', driver_license_number: '', driver_license_cats: '', driver_license_valid_till: null, hardware_key: null, department_id: null, tracker_id: null, location: null, personnel_number: '', tags: [], fuel_consumption: 0, fuel_cost: 0 };
    const c = await jsClient('employee/create', { employee, force_reassign: false });
    expect(c).toEqual({ success: true, id: expect.any(Number) });
    expect(await jsClient('employee/update', { employee: { ...employee, id: c.id, last_name: 'Li' }, force_reassign: false })).toEqual({ success: true });
  });
  it('task/create and task/update with tags: []', async () => {
    const task = { label: 'Deliver', description: '', location: { ...berlin, address: 'Alexanderplatz 1', radius: 150 }, from: '2030-01-10 09:00:00', to: '2030-01-10 12:00:00', tracker_id: null, external_id: '', max_delay: 0, tags: [] };
    const c = await jsClient('task/create', { task, create_form: false });
    expect(c).toMatchObject({ success: true, id: expect.any(Number) });
    expect(await jsClient('task/update', { task: { ...task, id: c.id, label: 'Deliver 2' } })).toEqual({ success: true });
  });
  it('task/route/create and task/route/update with checkpoints', async () => {
    const cp = (label: string, day: number) => ({ label, description: '', location: { lat: 52 + day / 10, lng: 13.4, address: `stop ${day}`, radius: 100 }, from: `2030-06-0${day} 08:00:00`, to: `2030-06-0${day} 10:00:00`, tags: [] });
    const c = await jsClient('task/route/create', { route: { label: 'Round', description: '', tracker_id: null, tags: [] }, checkpoints: [cp('A', 1), cp('B', 2)] });
    expect(c).toMatchObject({ success: true, result: { id: expect.any(Number), checkpoint_ids: [expect.any(Number), expect.any(Number)] } });
    expect(await jsClient('task/route/update', { route: { id: c.result.id, label: 'Round 2', description: '', tracker_id: null, tags: [] } })).toMatchObject({ success: true, result: { id: c.result.id, label: 'Round 2' } });
  });
  it('chat broadcast and mark_read with empty lists', async () => {
    expect(await jsClient('tracker/chat/broadcast', { trackers: [], message: 'hello' })).toEqual({ success: true, sent_to: [], not_sent_to: [] });
    expect(await jsClient('tracker/chat/mark_read', { message_ids: [] })).toEqual({ success: true });
    expect(userId).toBeGreaterThan(0);
  });
});
