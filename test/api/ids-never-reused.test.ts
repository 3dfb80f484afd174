/**
 * No id is handed out twice (issue 23; docs/storage.md#ids): for every entity the API creates and
 * deletes, create two, delete the newest, create again: the new one gets a new id (before migration
 * 040, SQLite gave it the deleted one's). Entities the API does not create (trackers, sub-users,
 * check-ins, files) are made as the admin command or the field app makes them, and deleted by the
 * API where it can. test/store/ids.test.ts checks that every entity table has AUTOINCREMENT.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/accounts/accounts.ts';
import { loadConfig } from '../../src/config.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let tracker: number;

beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ids@example.com');
  tracker = s.addTracker(ann.id, '356000000000777');
});
afterAll(() => s?.close());

async function ok(path: string, params: Record<string, unknown>): Promise<any> {
  const r = await s.call(path, { hash: ann.hash, ...params });
  expect(r.body, `${path}: ${JSON.stringify(r.body)}`).toMatchObject({ success: true });
  return r.body;
}

/** Create two, delete the newest, create again: the third id is past the second. */
async function neverReused(create: () => Promise<number>, remove: (id: number) => Promise<unknown>): Promise<void> {
  const first = await create();
  const second = await create();
  expect(second).toBeGreaterThan(first);
  await remove(second);
  const third = await create();
  expect(third).toBeGreaterThan(second);
}

const location = { lat: 54.687, lng: 25.28, address: 'Cathedral square', radius: 100 };
let n = 0;
const next = () => ++n;

describe('create, delete the newest, create again: a new id', () => {
  it('tasks', () =>
    neverReused(
      async () => (await ok('task/create', { task: { label: `T${next()}`, location, from: '2030-06-01 08:00:00', to: '2030-06-01 10:00:00' } })).id,
      (id) => ok('task/delete', { task_id: id }),
    ));
  it('routes and their checkpoints', async () => {
    const cp = (label: string) => ({ label, location, from: '2030-06-01 08:00:00', to: '2030-06-01 10:00:00' });
    const route = async () => {
      await ok('task/route/create', { route: { label: `R${next()}` }, checkpoints: [cp('A'), cp('B')] });
      return s.sql.prepare("SELECT id FROM tasks WHERE user_id = ? AND type = 'route' ORDER BY id DESC LIMIT 1").pluck().get(ann.id) as number;
    };
    const checkpoints = () => s.sql.prepare("SELECT MAX(id) FROM tasks WHERE user_id = ? AND type = 'checkpoint'").pluck().get(ann.id) as number;
    await neverReused(route, (id) => ok('task/route/delete', { route_id: id }));
    // The last route's checkpoints came after the deleted route's: their ids are past them too.
    const lastRoute = await route();
    expect(checkpoints()).toBeGreaterThan(lastRoute);
    const deleted = checkpoints();
    await ok('task/route/delete', { route_id: lastRoute });
    await route();
    expect(s.sql.prepare("SELECT MIN(id) FROM tasks WHERE user_id = ? AND type = 'checkpoint' AND id > ?").pluck().get(ann.id, lastRoute)).toBeGreaterThan(deleted);
  });
  it('places', () =>
    neverReused(
      async () => (await ok('place/create', { place: { label: `P${next()}`, location } })).id,
      (id) => ok('place/delete', { place_id: id }),
    ));
  it('zones', () =>
    neverReused(
      async () => (await ok('zone/create', { zone: { type: 'circle', label: `Z${next()}`, radius: 100, center: { lat: 54.6, lng: 25.2 } } })).id,
      (id) => ok('zone/delete', { zone_id: id }),
    ));
  it('employees', () =>
    neverReused(
      async () => (await ok('employee/create', { employee: { first_name: `E${next()}`, last_name: 'Field' } })).id,
      (id) => ok('employee/delete', { employee_id: id }),
    ));
  it('departments', () =>
    neverReused(
      async () => (await ok('department/create', { department: { label: `D${next()}` } })).id,
      (id) => ok('department/delete', { department_id: id }),
    ));
  it('form templates', () =>
    neverReused(
      async () => (await ok('form/template/create', { template: { label: `F${next()}`, fields: [{ id: 'note', label: 'Note', type: 'text', required: false }] } })).id,
      (id) => ok('form/template/delete', { template_id: id }),
    ));
  it('tags', () =>
    neverReused(
      async () => (await ok('tag/create', { tag: { name: `tag${next()}` } })).id,
      (id) => ok('tag/delete', { tag_id: id }),
    ));
  it('custom fields', () =>
    neverReused(
      async () => (await ok('entity/fields/create', { field: { entity_type: 'place', label: `C${next()}`, type: 'text' } })).id,
      (id) => ok('entity/fields/delete', { field_id: id }),
    ));
  it('status listings and statuses', async () => {
    const listing = async () => (await ok('status/listing/create', { listing: { label: `L${next()}`, employee_controlled: false } })).id;
    await neverReused(listing, (id) => ok('status/listing/delete', { listing_id: id }));
    const l = await listing();
    await neverReused(
      async () => (await ok('status/create', { listing_id: l, status: { label: `S${next()}`, color: 'ff0000' } })).id,
      (id) => ok('status/delete', { status_id: id }),
    );
  });
  it('retranslators', () =>
    neverReused(
      async () => (await ok('retranslator/create', { retranslator: { name: `G${next()}`, protocol_id: 1, address: '127.0.0.1', port: 20000 + n, password: 'pw', enabled: false } })).id,
      (id) => ok('retranslator/delete', { retranslator_id: id }),
    ));
  it('reports', () =>
    neverReused(
      async () => (await ok('report/tracker/generate', { from: '2026-11-20 00:00:00', to: '2026-11-20 23:59:59', trackers: [tracker], plugin: { plugin_id: 4 } })).id,
      (id) => ok('report/tracker/delete', { report_id: id }),
    ));
  it('map layers', () =>
    neverReused(
      async () => {
        const form = new FormData();
        form.set('hash', ann.hash);
        form.set('label', `M${next()}`);
        form.set('file', new Blob(['<kml><Document><Placemark><name>A</name><Point><coordinates>25.2,54.6</coordinates></Point></Placemark></Document></kml>'], { type: 'application/vnd.google-earth.kml+xml' }), 'layer.kml');
        const body = await (await fetch(`${s.url}/v2/fsm/map_layer/upload`, { method: 'POST', body: form })).json();
        expect(body).toMatchObject({ success: true });
        return body.id;
      },
      (id) => ok('map_layer/delete', { id }),
    ));
  it('trackers: clones (deleted by the API), and trackers with their sources (as the admin command adds them)', async () => {
    await neverReused(
      async () => s.store.trackers.clone(s.store.trackers.getAny(tracker)!, ann.id, `clone ${next()}`),
      (id) => ok('tracker/delete', { tracker_id: id }),
    );
    const sources: number[] = [];
    await neverReused(
      async () => {
        const id = s.addTracker(ann.id, `35600000000${String(next()).padStart(4, '0')}`);
        sources.push(s.sql.prepare('SELECT source_id FROM trackers WHERE id = ?').pluck().get(id) as number);
        return id;
      },
      async (id) => {
        const source = s.sql.prepare('SELECT source_id FROM trackers WHERE id = ?').pluck().get(id);
        s.sql.prepare('DELETE FROM trackers WHERE id = ?').run(id);
        s.sql.prepare('DELETE FROM sources WHERE id = ?').run(source);
      },
    );
    expect(sources[2]).toBeGreaterThan(sources[1]);
  });
  it('users and sub-users (made by the admin command)', async () => {
    const config = loadConfig({ FSM_DATA_DIR: s.dataDir, FSM_LOG_LEVEL: 'silent' });
    const deps = { store: s.store, config, mailer: createMailer(config.mail), now: Date.now };
    await neverReused(
      async () => (await createUser(deps, { login: `sub${next()}@example.com`, password: 'secret-1', parentLogin: 'ids@example.com', rights: [] })).id,
      async (id) => s.sql.prepare('DELETE FROM users WHERE id = ?').run(id),
    );
  });
  it('check-ins (deleted by the API)', async () => {
    const checkin = () =>
      Number(
        s.sql
          .prepare('INSERT INTO checkins (user_id, tracker_id, marker_time, lat, lng, address, comment) VALUES (?, ?, ?, 54.6, 25.2, ?, ?)')
          .run(ann.id, tracker, Date.now(), 'Street', `C${next()}`).lastInsertRowid,
      );
    await neverReused(async () => checkin(), (id) => ok('checkin/delete', { checkin_ids: [id] }));
  });
});
