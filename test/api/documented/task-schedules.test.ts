/**
 * task/schedule/* as documented (issue 23): create and update take `duration` (minutes after
 * from_time), read takes `id`, list takes trackers, filter, tag_ids and types, and schedule
 * entries answer every documented member.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedServer, expectMembers, type Documented } from './harness.ts';

let d: Documented;
let van: number;
let tag: number;
let tpl: number;
beforeAll(async () => {
  d = await documentedServer('schedules-doc@example.com', 'Europe/Berlin');
  van = d.s.addTracker(d.userId, 'doc-sched-van', { label: 'Van' });
  tag = (await d.ok('tag/create', { tag: { name: 'Weekly', color: 'FF0000' } })).id;
  tpl = (await d.ok('form/template/create', { template: { label: 'Sheet', fields: [{ id: 'Text-1', label: 'Note', type: 'text' }] } })).id;
});
afterAll(() => d?.close());

const ENTRY_MEMBERS = ['id', 'user_id', 'tracker_id', 'location', 'label', 'description', 'from_time', 'duration', 'max_delay', 'min_stay_duration', 'min_arrival_duration', 'parameters', 'tags', 'form_template_id'];

/** A weekly shop visit written from the documented schedule entry. */
const entry = (over: Record<string, unknown> = {}) => ({
  tracker_id: van,
  location: { lat: 52.52, lng: 13.405, address: 'Alexanderplatz 1', radius: 150 },
  label: 'Restock',
  description: 'Fill the shelves',
  from_time: '09:30:00',
  duration: 90,
  max_delay: 5,
  min_stay_duration: 10,
  min_arrival_duration: 2,
  parameters: { type: 'weekdays', weekdays: [1, 2, 3, 4, 5, 6, 7] },
  tags: [tag],
  form_template_id: tpl,
  ...over,
});

describe('task/schedule (documented shapes)', () => {
  let id: number;
  it('create takes duration; every created task is duration minutes long', async () => {
    const r = await d.ok('task/schedule/create', { schedule: entry() });
    expect(r.id).toEqual(expect.any(Number));
    id = r.id;
    expect(r.created_task_ids.length).toBeGreaterThan(0);
    const t = (await d.ok('task/read', { task_id: r.created_task_ids.at(-1) })).value;
    expect(t.from.slice(11)).toBe('09:30:00');
    expect(t.to.slice(11)).toBe('11:00:00');
    expect(t).toMatchObject({ label: 'Restock', max_delay: 5, min_stay_duration: 10, tags: [tag], origin: 'scheduled' });
  });
  it('read takes id and answers every documented member', async () => {
    const { value } = await d.ok('task/schedule/read', { id });
    expectMembers(value, ENTRY_MEMBERS, 'task/schedule/read value');
    expect(value).toMatchObject({ ...entry(), id, user_id: d.userId });
  });
  it('update takes duration; list answers every documented member and takes the documented filters', async () => {
    expect(await d.call('task/schedule/update', { schedule: { ...entry({ duration: 600, label: 'Restock all' }), id } })).toMatchObject({ success: true });
    expect((await d.ok('task/schedule/read', { id })).value).toMatchObject({ duration: 600, label: 'Restock all' });
    const other = (await d.ok('task/schedule/create', { schedule: entry({ tracker_id: null, tags: [], label: 'Inventory', description: 'Count', duration: 30 }) })).id;
    const { list } = await d.ok('task/schedule/list');
    for (const x of list) expectMembers(x, ENTRY_MEMBERS, 'task/schedule/list item');
    const ids = async (p: Record<string, unknown>) => (await d.ok('task/schedule/list', p)).list.map((x: { id: number }) => x.id);
    expect(await ids({})).toEqual([id, other]);
    expect(await ids({ trackers: [van] })).toEqual([id, other]); // unassigned schedules too, as documented
    expect(await ids({ trackers: [van + 1000] })).toEqual([other]);
    expect(await ids({ filter: 'count' })).toEqual([other]);
    expect(await ids({ tag_ids: [tag] })).toEqual([id]);
    expect(await ids({ types: ['task'] })).toEqual([id, other]);
    expect(await ids({ types: ['route'] })).toEqual([]);
  });
  it('documented errors: 201 unknown tracker, 204 unknown template or schedule to update', async () => {
    expect((await d.call('task/schedule/create', { schedule: entry({ tracker_id: 999_999 }) })).status.code).toBe(201);
    expect((await d.call('task/schedule/create', { schedule: entry({ form_template_id: 999_999 }) })).status.code).toBe(204);
    expect((await d.call('task/schedule/update', { schedule: { ...entry(), id: 999_999 } })).status.code).toBe(204);
    expect((await d.call('task/schedule/delete', { schedule_id: 999_999 })).status.code).toBe(201);
    const gone = (await d.ok('task/schedule/create', { schedule: entry({ label: 'Gone' }) })).id;
    expect(await d.call('task/schedule/delete', { schedule_id: gone })).toEqual({ success: true });
    expect((await d.call('task/schedule/read', { id: gone })).status.code).toBe(201);
    const missing = await d.call('task/schedule/create', { schedule: entry({ duration: undefined }) });
    expect(missing.errors).toEqual([{ parameter: 'schedule.duration', error: 'required' }]);
  });
});
