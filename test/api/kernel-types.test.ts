/**
 * A present parameter of the wrong type is reported as such, not as missing (issue 10, item 3):
 * code 7 naming the full parameter path, `expected <type>, got <type>`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCalls } from '../../src/api/server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let hash: string;
beforeAll(async () => {
  s = await startTestServer();
  ({ hash } = await s.user('types@example.com'));
});
afterAll(() => s.close());

const wrongTypes: Array<[string, Record<string, unknown>, string, string]> = [
  ['department/create', { department: 'x' }, 'department', 'expected object, got string'],
  ['department/create', { department: { label: 5 } }, 'department.label', 'expected string, got number'],
  ['department/update', { department: { id: true, label: 'x' } }, 'department.id', 'expected number, got boolean'],
  ['tag/create', { tag: { name: ['a'] } }, 'tag.name', 'expected string, got array'],
  ['tracker/read', { tracker_id: 'abc' }, 'tracker_id', 'expected number, got string'],
  ['tracker/read', { tracker_id: null }, 'tracker_id', 'expected number, got null'],
  ['zone/create', { zone: { type: 'circle', label: 'Z', radius: 50, center: { lat: 'north', lng: 13 } } }, 'zone.center.lat', 'expected number, got string'],
  ['zone/create', { zone: { type: 'polygon', label: 'Z' }, points: { lat: 1 } }, 'points', 'expected array, got object'],
  ['place/create', { place: { label: 'P', location: { lat: 52, lng: 13, radius: true } } }, 'place.location.radius', 'expected number, got boolean'],
  ['employee/create', { employee: { first_name: 'A', tags: { north: 1 } } }, 'employee.tags', 'expected array, got object'],
  ['task/create', { task: { label: 'T', location: { lat: 52, lng: 13, radius: 100 }, from: 20300101, to: '2030-01-01 10:00:00' } }, 'task.from', 'expected string, got number'],
  ['tracker/chat/send', { tracker_id: 1, message: { text: 'hi' } }, 'message', 'expected string, got object'],
  ['tracker/chat/broadcast', { trackers: [1, 'two'], message: 'x' }, 'trackers.1', 'expected number, got string'],
  ['user/auth', { login: 42, password: 'x' }, 'login', 'expected string, got number'],
];

describe('wrong types are named, with what was expected and what came', () => {
  for (const [path, params, parameter, error] of wrongTypes) {
    it(`${path} ${JSON.stringify(params)}`, async () => {
      const r = await s.call(path, { hash, ...params });
      expect(r.status).toBe(400);
      expect(r.body.status.code).toBe(7);
      expect(r.body.errors).toContainEqual({ parameter, error });
      expect(r.body.status.description).toContain(parameter);
    });
  }

  it('a form value that is not JSON where an object is expected', async () => {
    const res = await fetch(`${s.url}/api-v2/department/create`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ hash, department: 'x' }) });
    expect(await res.json()).toEqual({ success: false, status: { code: 7, description: 'Invalid parameters: department' }, errors: [{ parameter: 'department', error: 'expected object, got string' }] });
  });
  it('a query value that is not a number', async () => {
    const body = await (await fetch(`${s.url}/v2/fsm/tracker/read?hash=${hash}&tracker_id=seven`)).json();
    expect(body.errors).toEqual([{ parameter: 'tracker_id', error: 'expected number, got string' }]);
  });
  it('missing parameters are still "required", next to wrongly typed ones', async () => {
    const r = await s.call('department/create', { hash, department: { location: 'here' } });
    expect(r.body.errors).toEqual(expect.arrayContaining([{ parameter: 'department.label', error: 'required' }, { parameter: 'department.location', error: 'expected object, got string' }]));
    expect((await s.call('tracker/read', { hash })).body.errors).toEqual([{ parameter: 'tracker_id', error: 'required' }]);
  });
  it('over every call and each of its parameters: a present value of the wrong type is never "required"', async () => {
    let named = 0;
    for (const call of allCalls) {
      const shape = (call.params as unknown as { shape?: Record<string, unknown> }).shape;
      if (call.upload || call.path === 'user/logout' || !shape) continue;
      for (const name of Object.keys(shape)) {
        for (const wrong of [true, { wrong: 1 }]) {
          const r = await s.call(call.path, { hash, [name]: wrong });
          if (r.body.status?.code !== 7) continue;
          const about = (r.body.errors as Array<{ parameter: string; error: string }>).filter((e) => e.parameter === name);
          for (const e of about) expect(e.error, `${call.path} ${name}=${JSON.stringify(wrong)}`).not.toBe('required');
          named += about.length;
        }
      }
    }
    expect(named).toBeGreaterThan(100);
  });
  it('nothing was created by the refused calls', async () => {
    expect((await s.call('department/list', { hash })).body.list).toEqual([]);
    expect((await s.call('zone/list', { hash })).body.list).toEqual([]);
  });
});
