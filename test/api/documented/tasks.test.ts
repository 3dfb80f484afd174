/**
 * Tasks, routes (with their checkpoints) and task forms as the public documentation writes the
 * requests, checked for the documented members of the answers (issue 23).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasMembers, startHarness, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

/** The documented task object's members (Task object); `form` only when one is attached. */
const TASK_MEMBERS = ['id', 'user_id', 'tracker_id', 'location', 'label', 'description', 'creation_date', 'from', 'to', 'external_id', 'status', 'status_change_date', 'max_delay', 'min_stay_duration', 'arrival_date', 'stay_duration', 'origin', 'tags', 'type'];
const ROUTE_MEMBERS = ['id', 'user_id', 'tracker_id', 'label', 'description', 'creation_date', 'from', 'to', 'external_id', 'status', 'status_change_date', 'origin', 'tags', 'checkpoint_ids', 'type'];

const stop = (lat: number, lng: number) => ({ lat, lng, radius: 120 });
const newTask = (label: string, over: Record<string, unknown> = {}) => ({ location: stop(48.137, 11.575), label, description: 'Bring the signed papers', from: '2031-04-02 09:00:00', to: '2031-04-02 11:30:00', ...over });

async function template(): Promise<number> {
  const t = await h.documented('form/template/create', { template: { label: 'Delivery proof', fields: [{ id: 'receiver', label: 'Receiver', type: 'text', required: false, description: '', min_length: 0, max_length: 200 }], submit_in_zone: false } }, ['id']);
  return t.id;
}

describe('tasks', () => {
  it('create, read, update, assign, list, count, delete: documented requests and answers', async () => {
    const c = await h.documented('task/create', { task: { tracker_id: h.tracker, ...newTask('Parcel to Marienplatz') }, create_form: false }, ['id']);
    const read = await h.documented('task/read', { task_id: c.id }, ['value']);
    hasMembers(read.value, TASK_MEMBERS, 'task/read value');
    expect(read.value.location).toMatchObject({ lat: 48.137, lng: 11.575, radius: 120 });
    await h.documented('task/update', { task: { id: c.id, ...newTask('Parcel to Marienplatz 2') }, create_form: false });
    await h.documented('task/assign', { task_id: c.id, tracker_id: h.tracker });
    const list = await h.documented('task/list', { statuses: ['assigned', 'unassigned'], trackers: [h.tracker], from: '2031-04-01 00:00:00', to: '2031-04-03 00:00:00', sort: ['status=asc'], offset: 0, limit: 10 }, ['list', 'count']);
    expect(list.list.map((t: { id: number }) => t.id)).toContain(c.id);
    hasMembers(list.list[0], TASK_MEMBERS, 'task/list item');
    await h.documented('task/count', {}, ['count']);
    await h.documentedGet('task/read', { task_id: String(c.id) }, ['value']);
    await h.documented('task/delete', { task_id: c.id });
  });

  it('batch_convert: tab-delimited tasks with the documented default field order', async () => {
    const batch = ['Parcel A\t2031-04-02 09:00:00\t2031-04-02 10:00:00\tMarienplatz 1\t48.137\t11.575\tfront desk', 'Parcel B\t2031-04-02 11:00:00\t2031-04-02 12:00:00\tOdeonsplatz\t48.142\t11.577\t'].join('\n');
    const r = await h.documented('task/batch_convert', { batch, default_radius: 100, default_max_delay: 0, default_duration: 60, default_min_stay_duration: 0, location_check_mode: 'no_check' }, ['list', 'limit_exceeded']);
    expect(r.list).toHaveLength(2);
    expect(r.list[0]).toMatchObject({ label: 'Parcel A', location: { lat: 48.137, lng: 11.575 } });
  });

  it('transmute: a task becomes a route checkpoint at the documented zero-based order', async () => {
    const r = await h.documented('task/route/create', { route: { label: 'Ring', description: '' }, checkpoints: [newTask('First'), newTask('Last', { from: '2031-04-02 12:00:00', to: '2031-04-02 13:00:00' })], create_form: false }, ['result']);
    const t = await h.documented('task/create', { task: newTask('Middle') }, ['id']);
    await h.documented('task/transmute', { task_id: t.id, route_id: r.result.id, order: 1 });
    const route = await h.documented('task/route/read', { route_id: r.result.id }, ['value']);
    expect(route.value.checkpoint_ids[1]).toBe(t.id);
  });
});

describe('routes', () => {
  it('create answers the route object with checkpoint_ids as result; create_form makes checkpoint forms', async () => {
    const tpl = await template();
    const r = await h.documented(
      'task/route/create',
      {
        route: { tracker_id: h.tracker, label: 'Morning deliveries', description: 'Two stops', from: '2031-04-02 09:00:00', to: '2031-04-02 14:00:00' },
        checkpoints: [
          { tracker_id: h.tracker, ...newTask('Stop 1'), external_id: 'ST-1', max_delay: 5, min_stay_duration: 3, tags: [], form_template_id: tpl },
          { tracker_id: h.tracker, ...newTask('Stop 2', { location: stop(48.15, 11.6), from: '2031-04-02 12:00:00', to: '2031-04-02 14:00:00' }), external_id: 'ST-2', max_delay: 0, min_stay_duration: 0, tags: [], form_template_id: tpl },
        ],
        create_form: true,
      },
      ['result'],
    );
    hasMembers(r.result, ROUTE_MEMBERS, 'task/route/create result');
    expect(r.result).toMatchObject({ type: 'route', label: 'Morning deliveries', tracker_id: h.tracker, status: 'assigned' });
    expect(r.result.checkpoint_ids).toHaveLength(2);
    for (const id of r.result.checkpoint_ids) expect((await h.documented('task/form/read', { task_id: id }, ['value'])).value.template_id).toBe(tpl);
  });

  it('update takes checkpoints (with id: changed, without: new, absent: deleted) and answers result', async () => {
    const r = await h.documented('task/route/create', { route: { label: 'Afternoon', description: '' }, checkpoints: [newTask('A'), newTask('B'), newTask('C')] }, ['result']);
    const [a, , c] = r.result.checkpoint_ids as number[];
    const u = await h.documented(
      'task/route/update',
      { route: { id: r.result.id, label: 'Afternoon (changed)', description: 'reordered' }, checkpoints: [{ id: c, ...newTask('C') }, { id: a, ...newTask('A') }, newTask('D')], create_form: false },
      ['result'],
    );
    hasMembers(u.result, ROUTE_MEMBERS, 'task/route/update result');
    expect(u.result.label).toBe('Afternoon (changed)');
    expect(u.result.checkpoint_ids.slice(0, 2)).toEqual([c, a]);
    expect(u.result.checkpoint_ids).toHaveLength(3);
    const read = await h.documented('task/route/read', { route_id: r.result.id }, ['value']);
    hasMembers(read.value, ROUTE_MEMBERS, 'task/route/read value');
    expect(read.value.checkpoint_ids).toEqual(u.result.checkpoint_ids);
    const list = await h.documented('task/route/list', {}, ['list']);
    hasMembers(list.list[0], ROUTE_MEMBERS, 'task/route/list item');
    await h.documented('task/route/delete', { route_id: r.result.id });
  });
});

describe('task forms', () => {
  // values/update corrects a submitted form only (documented); its shape is tested with a submission in test/api/task-form.test.ts.
  it('create, read (value and files), list, download, delete', async () => {
    const tpl = await template();
    const t = await h.documented('task/create', { task: newTask('With a form') }, ['id']);
    await h.documented('task/form/create', { task_id: t.id, template_id: tpl });
    const read = await h.documented('task/form/read', { task_id: t.id }, ['value', 'files']);
    hasMembers(read.value, ['id', 'label', 'fields', 'values', 'submitted', 'template_id'], 'task/form/read value');
    expect((await h.documented('form/read', { id: read.value.id }, ['value', 'files'])).value.id).toBe(read.value.id);
    const forms = await h.documented('task/form/list', { template_id: tpl, ascending: true, include_unsubmitted: true }, ['list', 'count']);
    hasMembers(forms.list[0], ['employee', 'task', 'tracker', 'vehicle', 'form', 'submit_places'], 'task/form/list item');
    expect((await h.documented('task/form/list', { task_ids: [t.id], ascending: false, include_unsubmitted: true }, ['list', 'count'])).count).toBe(1);
    const file = await h.s.call('task/form/download', { hash: h.user.hash, task_id: t.id, format: 'pdf' });
    expect(file.status).toBe(200);
    const form = await h.s.call('form/download', { hash: h.user.hash, id: read.value.id, format: 'pdf' });
    expect(form.status).toBe(200);
    await h.documented('task/form/delete', { task_id: t.id });
  });
});
