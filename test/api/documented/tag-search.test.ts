/**
 * tag/search as documented: the user's entities carrying every one of tag_ids, grouped by tagged
 * entity type, each as its own read call answers it; entity_types narrows the groups; groups with
 * nothing are left out (as the documentation's guide answers); 7 naming the parameter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedServer, type Documented } from './harness.ts';

let d: Documented;
let red: number;
let blue: number;
const ids: Record<string, number> = {};
let onlyRed: number;
let tracker: number;

beforeAll(async () => {
  d = await documentedServer('tag-search-doc@example.com');
  red = (await d.ok('tag/create', { tag: { name: 'red', color: 'FF0000' } })).id;
  blue = (await d.ok('tag/create', { tag: { name: 'blue', color: '0000FF' } })).id;
  const both = [red, blue];
  const location = { lat: 34.178868, lng: -118.599672, address: '21550 W Oxnard St', radius: 100 };
  ids.place = (await d.ok('place/create', { place: { label: 'New place', location, tags: both } })).id;
  onlyRed = (await d.ok('place/create', { place: { label: 'Red place', location, tags: [red] } })).id;
  ids.task = (await d.ok('task/create', { task: { label: 'New task', location, from: '2031-06-17 00:00:00', to: '2031-06-17 23:59:59', tags: both } })).id;
  ids.task_schedule = (
    await d.ok('task/schedule/create', {
      schedule: { tracker_id: null, location, label: 'Weekly', description: '', from_time: '09:00:00', duration: 60, max_delay: 0, min_stay_duration: 0, min_arrival_duration: 0, parameters: { type: 'weekdays', weekdays: [1] }, tags: both, form_template_id: null },
    })
  ).id;
  ids.employee = (await d.ok('employee/create', { employee: { first_name: 'Andrew', last_name: '', tags: both } })).id;
  ids.zone = (await d.ok('zone/create', { zone: { type: 'circle', label: 'Zone', address: 'Here', radius: 100, center: { lat: 34.17, lng: -118.59 }, tags: both } })).id;
  tracker = d.s.addTracker(d.userId, '359633100000077', { label: 'Van' });
  const bind = d.s.sql.prepare('INSERT INTO tracker_tags (tracker_id, tag_id, ordinal) VALUES (?, ?, ?)');
  bind.run(tracker, red, 1);
  bind.run(tracker, blue, 2);
});
afterAll(() => d?.close());

/** Each entity as its own read call answers it (the schedule's tasks carry its tags too). */
async function asRead(): Promise<Record<string, unknown>> {
  const tasks = (await d.ok('task/list')).list.filter((t: { tags: number[] }) => t.tags.includes(red) && t.tags.includes(blue));
  expect(tasks.length).toBeGreaterThan(1);
  expect(tasks[0]).toEqual((await d.ok('task/read', { task_id: ids.task })).value);
  return {
    place: [(await d.ok('place/read', { place_id: ids.place })).value],
    task: tasks,
    task_schedule: [(await d.ok('task/schedule/read', { id: ids.task_schedule })).value],
    employee: [(await d.ok('employee/read', { employee_id: ids.employee })).value],
    zone: [(await d.ok('zone/read', { zone_id: ids.zone })).value],
    tracker: (await d.ok('tracker/list')).list.filter((t: { id: number }) => t.id === tracker),
  };
}

describe('tag/search', () => {
  it('answers the entities carrying all the tags, grouped by type in the documented order, as their reads answer them', async () => {
    const r = await d.call('tag/search', { tag_ids: [red, blue] });
    expect(r).toEqual({ success: true, result: await asRead() });
    expect(Object.keys(r.result)).toEqual(['place', 'task', 'task_schedule', 'employee', 'zone', 'tracker']);
    expect(r.result.tracker[0].tag_bindings).toEqual([
      { tag_id: red, ordinal: 1 },
      { tag_id: blue, ordinal: 2 },
    ]);
  });
  it('one tag finds every entity carrying it', async () => {
    const r = await d.ok('tag/search', { tag_ids: [red] });
    expect(r.result.place.map((p: { id: number }) => p.id)).toEqual([ids.place, onlyRed]);
  });
  it('entity_types keeps only those groups; vehicle is accepted and finds nothing', async () => {
    const read = await asRead();
    expect(await d.call('tag/search', { tag_ids: [red, blue], entity_types: ['zone', 'vehicle', 'place'] })).toEqual({ success: true, result: { place: read.place, zone: read.zone } });
    expect(await d.call('tag/search', { tag_ids: [red, blue], entity_types: ['vehicle'] })).toEqual({ success: true, result: {} });
  });
  it('takes the documented GET query string', async () => {
    const res = await fetch(`${d.s.url}/v2/tag/search?hash=${d.hash}&tag_ids=[${red}, ${blue}]`);
    expect(Object.keys((await res.json()).result)).toHaveLength(6);
  });
  it("a sub-user without rights finds its master's entities; another user finds nothing with these tags", async () => {
    const sub = await d.s.user('tag-search-sub@example.com', { parent: 'tag-search-doc@example.com', rights: [] });
    expect((await d.s.call('tag/search', { hash: sub.hash, tag_ids: [red, blue] })).body).toEqual({ success: true, result: await asRead() });
    const other = await d.s.user('tag-search-other@example.com');
    expect((await d.s.call('tag/search', { hash: other.hash, tag_ids: [red, blue] })).body).toEqual({ success: true, result: {} });
    expect(await d.call('tag/search', { tag_ids: [999_999] })).toEqual({ success: true, result: {} });
  });
  it('7 naming tag_ids or entity_types', async () => {
    for (const bad of [{}, { tag_ids: [] }, { tag_ids: 'red' }, { tag_ids: [0] }]) {
      const r = await d.call('tag/search', bad);
      expect(r.status.code, JSON.stringify(bad)).toBe(7);
      expect(r.errors[0].parameter, JSON.stringify(bad)).toMatch(/^tag_ids/);
    }
    const r = await d.call('tag/search', { tag_ids: [red], entity_types: ['car'] });
    expect(r.status.code).toBe(7);
    expect(r.errors[0].parameter).toMatch(/^entity_types/);
  });
});
