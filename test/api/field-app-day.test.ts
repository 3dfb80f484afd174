/**
 * A field employee's day end to end over real HTTP (issue 11, "Tests and figures"): a template with
 * every field type, a task with a form, the field app activated and watching its tasks, driving into
 * the zone through the gateway (OsmAnd positions over HTTP), a delivery session reading the task by
 * external id, a photo uploaded, the form first refused (242 with field codes) then submitted, the
 * task done; a check-in with a photo and a form listed with its nearby places; status changes from
 * both origins; chat both ways; the watch ends when the server closes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDateTime } from '../../src/core/time.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { openSse, until, type SseStream } from '../helpers/sse.ts';
import { jpeg, upload } from '../files/fixtures.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let closed = false;
const TZ = 'Europe/Berlin';
beforeAll(async () => {
  s = await startTestServer({ FSM_OSMAND_PORT: '0', FSM_APP_HEARTBEAT_SECONDS: '1', FSM_APP_WATCH_POLL_MS: '50' });
  ann = await s.user('ann@example.com', { timeZone: TZ });
});
afterAll(async () => {
  if (!closed) await s.close();
});

const ALL_TYPES = [
  { id: 'note', label: 'Note', type: 'text', required: true, min_length: 2, max_length: 200 },
  { id: 'boxes', label: 'Checks', type: 'checkbox_group', group: ['Clean', 'Dry'], min_checked: 0, max_checked: 2 },
  { id: 'pick', label: 'Pick', type: 'dropdown', options: ['A', 'B'] },
  { id: 'radio', label: 'Radio', type: 'radio_group', options: ['Yes', 'No'] },
  { id: 'day', label: 'Day', type: 'date' },
  { id: 'stars', label: 'Stars', type: 'rating', max_stars: 5 },
  { id: 'doc', label: 'Doc', type: 'file', allowed_extensions: ['pdf'] },
  { id: 'pics', label: 'Photos', type: 'photo', max_files: 3, required: true },
  { id: 'sign', label: 'Signature', type: 'signature' },
  { id: 'sep', label: 'Section', type: 'separator' },
];
const ZONE = { lat: 52.52, lng: 13.405, address: 'Alexanderplatz 1', radius: 150 };
const PLACE = { lat: 52.5163, lng: 13.3777 };

const call = async (path: string, params: Record<string, unknown>) => {
  const r = await s.call(path, params);
  if (!r.body.success) throw new Error(`${path}: ${JSON.stringify(r.body)}`);
  return r.body;
};

describe('a day in the field', () => {
  it('from activation to a done task, a check-in and both kinds of status change', async () => {
    const now = Date.now();
    // The office: a template with every field type, a check-in template, a place, a status listing.
    const tpl = (await call('form/template/create', { hash: ann.hash, template: { label: 'Inspection', fields: ALL_TYPES } })).id;
    const tplCheckin = (await call('form/template/create', { hash: ann.hash, template: { label: 'Visit', fields: [{ id: 'who', label: 'Met', type: 'text', required: true, min_length: 1, max_length: 100 }] } })).id;
    const place = (await call('place/create', { hash: ann.hash, place: { label: 'Brandenburg Gate', location: { ...PLACE, radius: 100 } } })).id;
    const listing = (await call('status/listing/create', { hash: ann.hash, listing: { label: 'Shift', employee_controlled: true } })).id;
    const onDuty = (await call('status/create', { hash: ann.hash, listing_id: listing, status: { label: 'On duty', color: '00ff00' } })).id;
    const busy = (await call('status/create', { hash: ann.hash, listing_id: listing, status: { label: 'Busy', color: 'ff0000' } })).id;

    // A phone for Eva, activated with the code the operator reads to her.
    const tracker = s.addTracker(ann.id, '4824117901', { protocol: 'osmand', label: 'Eva phone' });
    const eva = (await call('employee/create', { hash: ann.hash, employee: { first_name: 'Eva', last_name: 'Field', tracker_id: tracker } })).id;
    await call('status/listing/tracker/assign', { hash: ann.hash, tracker_id: tracker, listing_id: listing });
    const { code } = await call('tracker/app/activation/create', { hash: ann.hash, tracker_id: tracker });
    const { token, positions } = await call('app/activate', { code, label: 'Pixel 8' });
    expect(positions.device_id).toBe('4824117901');
    const app = (path: string, p: Record<string, unknown> = {}) => s.call(path, { hash: token, ...p });

    // The app watches its tasks; the office creates one with a form, assigned to Eva's phone.
    let watch: SseStream | undefined = await openSse(`${s.url}/v2/fsm/app/task/watch?hash=${token}`);
    try {
      await watch.next((e) => e.event === 'tasks');
      const at = watch.events.length;
      const task = (
        await call('task/create', {
          hash: ann.hash,
          create_form: true,
          task: { label: 'Boiler check', location: ZONE, from: formatDateTime(now - 20 * 60_000, TZ), to: formatDateTime(now + 2 * 3_600_000, TZ), external_id: 'ORDER-1001', tracker_id: tracker, form_template_id: tpl },
        })
      ).id;
      const pushed = await watch.next((e) => e.event === 'tasks' && e.data.list.some((t: { id: number }) => t.id === task), at);
      const seen = pushed.data.list.find((t: { id: number }) => t.id === task);
      expect(seen).toMatchObject({ id: task, status: 'assigned', external_id: 'ORDER-1001', form: { template_id: tpl, values: null, fields: expect.any(Array) } });
      const formId = seen.form.id;

      // Driving into the zone: positions from the phone through the OsmAnd listener.
      const url = `http://127.0.0.1:${s.running.gateway.ports.osmand.http}/`;
      const sec = Math.floor(now / 1000) - 600;
      const drive = [
        [sec, 52.53, 13.42, 20],
        [sec + 60, 52.525, 13.41, 15],
        [sec + 120, 52.5202, 13.4052, 0],
        [sec + 240, 52.5201, 13.4051, 0],
        [sec + 400, 52.52, 13.405, 0],
      ];
      const locations = drive.map(([t, lat, lng, mps]) => `{"timestamp":"${new Date(t * 1000).toISOString()}","coords":{"latitude":${lat},"longitude":${lng},"accuracy":5,"speed":${mps},"heading":200,"altitude":40},"is_moving":${mps > 0},"odometer":0,"event":"","battery":{"level":0.8,"is_charging":false},"activity":{"type":"in_vehicle"},"extras":{}}`);
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"location":[${locations.join(',')}],"device_id":"${positions.device_id}"}` });
      expect(res.status).toBe(200);
      // The telemetry core sees the visit: the task has arrived (the form is not submitted yet), pushed to the app.
      const arrived = await watch.next((e) => e.event === 'tasks' && e.data.list.some((t: { id: number; status: string }) => t.id === task && t.status === 'arrived'), 0, 20_000);
      expect(arrived.data.reset).toBe(false);

      // The customer's page: a delivery session reads the task by its external id.
      const delivery = (await call('user/session/delivery/create', { hash: ann.hash })).value;
      const d = await s.call('delivery/read', { hash: delivery, external_id: 'ORDER-1001' });
      expect(d.body).toMatchObject({ success: true, task: { id: task, status: 'arrived' }, tracker: { id: tracker }, first_name: 'Eva', last_name: 'Field' });

      // A photo for the form: announced by the app, uploaded to the url it was given.
      const photo = await jpeg(64, 48, 6);
      const ann1 = await app('app/form/file/create', { form_id: formId, field_id: 'pics', size: photo.length, filename: 'boiler.jpg' });
      expect(ann1.body).toMatchObject({ success: true, file_id: expect.any(Number), url: expect.stringContaining('/v2/file/upload/'), file_field_name: 'file' });
      const up = await upload(ann1.body.url, ann1.body.fields, photo, { filename: 'boiler.jpg', type: 'image/jpeg' });
      expect(up.status).toBe(200);

      // First attempt: refused with the codes of each field; nothing stored.
      const inZone = { lat: 52.52, lng: 13.405 };
      const bad = await app('app/form/submit', { task_id: task, location: inZone, values: { note: { type: 'text', value: 'x' }, stars: { type: 'rating', value: 9 }, radio: { type: 'radio_group', value_index: 5 }, pics: { type: 'photo', file_ids: [] } } });
      expect(bad.status).toBe(400);
      expect(bad.body.status.code).toBe(242);
      expect(bad.body.errors.map((e: { field_id: string; code: number }) => [e.field_id, e.code]).sort()).toEqual([
        ['note', 6],
        ['pics', 1],
        ['radio', 4],
        ['stars', 7],
      ]);
      expect(s.store.forms.get(ann.id, formId)!.values_json).toBeNull();

      // Then submitted: the task is done and the app hears of it.
      const today = formatDateTime(Date.now(), TZ).slice(0, 10);
      const values = {
        note: { type: 'text', value: 'Pressure fine' },
        boxes: { type: 'checkbox_group', values: [true, true] },
        pick: { type: 'dropdown', value_index: 1 },
        radio: { type: 'radio_group', value_index: 0 },
        day: { type: 'date', value: today },
        stars: { type: 'rating', value: 5 },
        pics: { type: 'photo', file_ids: [ann1.body.file_id] },
      };
      const ok = await app('app/form/submit', { task_id: task, location: inZone, values });
      expect(ok.body).toMatchObject({ success: true, value: { id: formId, task_id: task, tracker_id: tracker, values: expect.objectContaining({ note: { type: 'text', value: 'Pressure fine' } }), submit_location: { lat: 52.52, lng: 13.405 } } });
      const done = await watch.next((e) => e.event === 'tasks' && e.data.list.some((t: { id: number; status: string }) => t.id === task && t.status === 'done'), 0, 20_000);
      expect(done.data.list.find((t: { id: number }) => t.id === task).form.submitted).toEqual(expect.any(String));
      expect((await call('task/read', { hash: ann.hash, task_id: task })).value.status).toBe('done');
      expect((await call('file/read', { hash: ann.hash, file_id: ann1.body.file_id })).value.bindings).toEqual([{ type: 'form_field', form_id: formId, field_id: 'pics', submitted: true }]);

      // A check-in at the gate with a photo and a form from a template.
      const shot = await jpeg(32, 32, 1);
      const cf = await app('app/checkin/file/create', { type: 'image', size: shot.length, filename: 'gate.jpg' });
      expect((await upload(cf.body.url, cf.body.fields, shot, { filename: 'gate.jpg', type: 'image/jpeg' })).status).toBe(200);
      const refused = await app('app/checkin/create', { location: PLACE, comment: 'Met the client', file_ids: [cf.body.file_id], form: { template_id: tplCheckin, values: {} } });
      expect(refused.body).toMatchObject({ success: false, status: { code: 242 }, errors: [{ field_id: 'who', code: 1 }] });
      const checkin = await app('app/checkin/create', { location: PLACE, comment: 'Met the client', file_ids: [cf.body.file_id], form: { template_id: tplCheckin, values: { who: { type: 'text', value: 'Mr. Braun' } } } });
      expect(checkin.body).toMatchObject({ success: true, id: expect.any(Number), form: { template_id: tplCheckin, task_id: null, values: { who: { type: 'text', value: 'Mr. Braun' } } } });
      const listed = await call('checkin/list', { hash: ann.hash, trackers: [tracker], show_nearby_geo_entities: true });
      expect(listed.list).toEqual([
        expect.objectContaining({ id: checkin.body.id, tracker_id: tracker, comment: 'Met the client', places: [{ id: place, label: 'Brandenburg Gate' }], zones: [] }),
      ]);
      expect(listed.list[0].files.map((f: { id: number }) => f.id)).toEqual([cf.body.file_id]);
      expect([listed.list[0].form_id, listed.list[0].form_label, listed.list[0].employee_id]).toEqual([checkin.body.form.id, 'Visit', eva]);
      // Refused check-ins left no form behind.
      expect(s.sql.prepare('SELECT count(*) FROM forms WHERE task_id IS NULL').pluck().get()).toBe(1);

      // Statuses: the supervisor sets one, the employee another.
      expect((await call('status/tracker/assign', { hash: ann.hash, tracker_id: tracker, new_status_id: onDuty })).last_change.origin).toBe('supervisor');
      expect((await app('app/status/assign', { new_status_id: busy })).body.last_change).toMatchObject({ old_status_id: onDuty, new_status_id: busy, origin: 'employee', location: { lat: 52.52, lng: 13.405 } });
      const read = await call('status/tracker/read', { hash: ann.hash, tracker_id: tracker });
      expect(read).toMatchObject({ current_status: { id: busy }, last_change: { origin: 'employee' } });
      expect(s.sql.prepare('SELECT origin FROM status_changes WHERE tracker_id = ? ORDER BY id').pluck().all(tracker)).toEqual(['supervisor', 'employee']);

      // Chat both ways.
      const msg = (await call('tracker/chat/send', { hash: ann.hash, tracker_id: tracker, message: 'Thanks Eva' })).id;
      expect((await app('app/chat/list')).body.list).toEqual([expect.objectContaining({ id: msg, status: 'DELIVERED' })]);
      const back = (await app('app/chat/send', { message: 'Heading home' })).body.id;
      expect(s.store.chat.get(back)).toMatchObject({ type: 'INCOMING', employee_id: eva });

      // The server shuts down: the watch is told and ends; closing does not wait for it.
      const t0 = Date.now();
      closed = true;
      await s.close();
      expect(Date.now() - t0).toBeLessThan(10_000);
      await watch.next((e) => e.event === 'closing');
      await watch.closed();
      watch = undefined;
    } finally {
      watch?.close();
    }
  });
});
