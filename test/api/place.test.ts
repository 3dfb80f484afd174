/** Places over real HTTP (issue 4; spec: Place, Places calls, Limits). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeoTestServer, type GeoTestServer } from '../imports/harness.ts';

let g: GeoTestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
const geo = () => g.s.sql.prepare("SELECT value FROM versions WHERE name = 'geo'").pluck().get() as number;
const count = (userId: number) => g.s.store.places.count(userId);
const place = (over: Record<string, unknown> = {}) => ({ label: 'Depot', description: 'main', location: { lat: 52.5, lng: 13.4, address: 'Hauptstr. 1', radius: 150 }, ...over });
/** A master with its own tariff whose max_places is `max`. */
async function userWithQuota(login: string, max: number) {
  const u = await g.s.user(login);
  const t = g.s.store.tariffs.copy(1, `quota ${login}`);
  g.s.store.tariffs.update(t, { max_places: max });
  g.s.sql.prepare('UPDATE users SET tariff_id = ? WHERE id = ?').run(t, u.id);
  return u;
}

beforeAll(async () => {
  g = await startGeoTestServer();
  ann = await g.s.user('ann@example.com');
  bob = await g.s.user('bob@example.com');
});
afterAll(() => g.close());

describe('place/create, read, update, delete', () => {
  it('round trip; icon_id and avatar are ignored; tags, external_id and fields kept', async () => {
    const tag = (await g.call('tag/create', { hash: ann.hash, tag: { name: 'depots' } })).body.id;
    const field = (await g.call('entity/fields/create', { hash: ann.hash, field: { entity_type: 'place', label: 'Code', type: 'text' } })).body.id;
    const before = geo();
    const c = await g.call('place/create', { hash: ann.hash, place: place({ icon_id: 7, avatar_file_name: 'x.png', tags: [tag], external_id: 'EXT-1', fields: { [field]: { type: 'text', value: 'A1' } } }) });
    expect(c.body).toEqual({ success: true, id: expect.any(Number) });
    expect(geo()).toBeGreaterThan(before);
    const r = await g.call('place/read', { hash: ann.hash, place_id: c.body.id });
    expect(r.body.value).toEqual({
      id: c.body.id,
      label: 'Depot',
      description: 'main',
      location: { lat: 52.5, lng: 13.4, address: 'Hauptstr. 1', radius: 150 },
      tags: [tag],
      fields: { [field]: { type: 'text', value: 'A1' } },
      external_id: 'EXT-1',
      avatar_file_name: null,
    });
    const u = await g.call('place/update', { hash: ann.hash, place: { id: c.body.id, icon_id: 9, label: 'Depot 2', location: { lat: 1, lng: 2, address: 'Elsewhere', radius: 20 } } });
    expect(u.body).toEqual({ success: true });
    const v = (await g.call('place/read', { hash: ann.hash, place_id: c.body.id })).body.value;
    // Replaced: description and external_id back to defaults, tags omitted = none; fields omitted = kept.
    expect(v).toMatchObject({ label: 'Depot 2', description: '', external_id: null, tags: [], fields: { [field]: { type: 'text', value: 'A1' } }, location: { lat: 1, lng: 2, address: 'Elsewhere', radius: 20 } });
    expect(v.icon_id).toBeUndefined();
    expect((await g.call('place/delete', { hash: ann.hash, place_id: c.body.id })).body).toEqual({ success: true });
    expect((await g.call('place/read', { hash: ann.hash, place_id: c.body.id })).body.status.code).toBe(201);
    expect(g.s.store.tags.entityTags('place', [c.body.id]).get(c.body.id)).toEqual([]);
  });
  it('an empty address is filled by the geocoder (kept empty when it knows nothing); radius defaults to 100', async () => {
    const a = await g.call('place/create', { hash: ann.hash, place: { label: 'No address', location: { lat: 48.1, lng: 11.6 } } });
    expect((await g.call('place/read', { hash: ann.hash, place_id: a.body.id })).body.value.location).toEqual({ lat: 48.1, lng: 11.6, address: 'Near 48.10, 11.60', radius: 100 });
    const b = await g.call('place/create', { hash: ann.hash, place: { label: 'Null island', location: { lat: 0, lng: 0, address: '' } } });
    expect((await g.call('place/read', { hash: ann.hash, place_id: b.body.id })).body.value.location.address).toBe('');
    await g.call('place/update', { hash: ann.hash, place: { id: b.body.id, label: 'Moved', location: { lat: 10, lng: 20 } } });
    expect((await g.call('place/read', { hash: ann.hash, place_id: b.body.id })).body.value.location.address).toBe('Near 10.00, 20.00');
  });
  it('7 naming the parameter for each bad field, and nothing is stored', async () => {
    const bobTag = (await g.call('tag/create', { hash: bob.hash, tag: { name: 'bobs' } })).body.id;
    const n = count(ann.id);
    for (const [p, param] of [
      [place({ external_id: 'x'.repeat(33) }), 'place.external_id'],
      [place({ tags: [] }), 'place.tags'],
      [place({ tags: [bobTag] }), 'place.tags'],
      [place({ label: '' }), 'place.label'],
      [place({ description: 'd'.repeat(1025) }), 'place.description'],
      [place({ location: { lat: 91, lng: 0 } }), 'place.location.lat'],
      [place({ location: { lat: 0, lng: -181 } }), 'place.location.lng'],
      [place({ location: { lat: 0, lng: 0, radius: 0 } }), 'place.location.radius'],
      [place({ location: undefined }), 'place.location'],
      [place({ fields: { 999999: { type: 'text', value: 'x' } } }), 'place.fields.999999'],
    ] as const) {
      const r = await g.call('place/create', { hash: ann.hash, place: p });
      expect(r.body.status.code, param).toBe(7);
      expect(r.body.errors.map((e: any) => e.parameter)).toContain(param);
    }
    expect(count(ann.id)).toBe(n);
  });
  it('required custom fields: 7 unless ignore_missing_fields; a value of the wrong type is 7', async () => {
    const u = await g.s.user('fields@example.com');
    const f = (await g.call('entity/fields/create', { hash: u.hash, field: { entity_type: 'place', label: 'Size', type: 'number', required: true } })).body.id;
    const r = await g.call('place/create', { hash: u.hash, place: place() });
    expect(r.body.status.code).toBe(7);
    expect(r.body.errors[0].parameter).toBe(`place.fields.${f}`);
    expect((await g.call('place/create', { hash: u.hash, place: place({ fields: { [f]: { type: 'number', value: 'big' } } }) })).body.errors[0].parameter).toBe(`place.fields.${f}.value`);
    expect(count(u.id)).toBe(0);
    expect((await g.call('place/create', { hash: u.hash, place: place(), ignore_missing_fields: true })).body.success).toBe(true);
    expect((await g.call('place/create', { hash: u.hash, place: place({ fields: { [f]: { type: 'number', value: 3 } } }) })).body.success).toBe(true);
  });
  it("another user's place is not found: read, update, delete, list by id; nothing changes", async () => {
    const id = (await g.call('place/create', { hash: ann.hash, place: place({ label: 'Ann only' }) })).body.id;
    expect((await g.call('place/read', { hash: bob.hash, place_id: id })).body.status.code).toBe(201);
    const u = await g.call('place/update', { hash: bob.hash, place: { id, label: 'Taken', location: { lat: 1, lng: 1 } } });
    expect(u.status).toBe(404);
    expect(u.body.status.code).toBe(201);
    expect((await g.call('place/delete', { hash: bob.hash, place_id: id })).body.status.code).toBe(201);
    expect((await g.call('place/list', { hash: bob.hash, place_ids: [id] })).body).toEqual({ success: true, list: [], count: 0 });
    expect(g.s.store.places.get(ann.id, id)!.label).toBe('Ann only');
    expect((await g.call('place/update', { hash: ann.hash, place: { id: 99999999, label: 'x', location: { lat: 1, lng: 1 } } })).body.status.code).toBe(201);
  });
  it('a sub-user works on its master\'s places', async () => {
    const sub = await g.s.user('ann-sub@example.com', { parent: 'ann@example.com', rights: ['place_update'] });
    const id = (await g.call('place/create', { hash: sub.hash, place: place({ label: 'By sub' }) })).body.id;
    expect(g.s.store.places.get(ann.id, id)!.label).toBe('By sub');
  });
  it('268 over the tariff quota max_places, nothing stored', async () => {
    const q = await userWithQuota('quota@example.com', 1);
    expect((await g.call('place/create', { hash: q.hash, place: place() })).body.success).toBe(true);
    const r = await g.call('place/create', { hash: q.hash, place: place() });
    expect(r.status).toBe(403);
    expect(r.body.status.code).toBe(268);
    expect(count(q.id)).toBe(1);
  });
});

describe('place/list', () => {
  let u: { id: number; hash: string };
  const ids: Record<string, number> = {};
  let field: number;
  beforeAll(async () => {
    u = await g.s.user('lister@example.com');
    field = (await g.call('entity/fields/create', { hash: u.hash, field: { entity_type: 'place', label: 'Rank', type: 'number' } })).body.id;
    const tag = (await g.call('tag/create', { hash: u.hash, tag: { name: 'north' } })).body.id;
    for (const [label, rank, addr, ext] of [
      ['Alpha', 3, 'Oak street 1', 'A'],
      ['beta', 1, 'Pine road 2', null],
      ['Gamma', 2, 'Oak avenue 3', 'G'],
      ["x' OR 1=1 --", 4, 'Elm 4', null],
    ] as const) {
      ids[label] = (await g.call('place/create', { hash: u.hash, place: { label, location: { lat: 1, lng: 1, address: addr }, external_id: ext, tags: [tag], fields: { [field]: { type: 'number', value: rank } } } })).body.id;
    }
  });
  const labels = (r: any) => r.body.list.map((p: any) => p.label);

  it('all, in id order by default, with tags and fields, and count', async () => {
    const r = await g.call('place/list', { hash: u.hash });
    expect(labels(r)).toEqual(['Alpha', 'beta', 'Gamma', "x' OR 1=1 --"]);
    expect(r.body.count).toBe(4);
    expect(r.body.list[0]).toMatchObject({ tags: [expect.any(Number)], fields: { [field]: { type: 'number', value: 3 } } });
  });
  it('order_by a built-in field (case-insensitive) or a custom field id, ascending or not; limit, offset, count', async () => {
    expect(labels(await g.call('place/list', { hash: u.hash, order_by: 'label', ascending: false }))).toEqual(["x' OR 1=1 --", 'Gamma', 'beta', 'Alpha']);
    expect(labels(await g.call('place/list', { hash: u.hash, order_by: String(field) }))).toEqual(['beta', 'Gamma', 'Alpha', "x' OR 1=1 --"]);
    const page = await g.call('place/list', { hash: u.hash, order_by: 'label', limit: 2, offset: 1 });
    expect(labels(page)).toEqual(['beta', 'Gamma']);
    expect(page.body.count).toBe(4);
  });
  it('filter matches label, address, external_id and custom values; place_ids', async () => {
    expect(labels(await g.call('place/list', { hash: u.hash, filter: 'oak' }))).toEqual(['Alpha', 'Gamma']);
    expect(labels(await g.call('place/list', { hash: u.hash, filter: 'BET' }))).toEqual(['beta']);
    expect(labels(await g.call('place/list', { hash: u.hash, filter: '%' }))).toEqual([]);
    expect(labels(await g.call('place/list', { hash: u.hash, place_ids: [ids.Gamma, ids.Alpha] }))).toEqual(['Alpha', 'Gamma']);
  });
  it('conditions: eq, contains, in, not, or, null, custom field ids', async () => {
    const list = async (conditions: unknown[]) => labels(await g.call('place/list', { hash: u.hash, conditions }));
    expect(await list([{ type: 'eq', field: 'label', value: 'ALPHA' }])).toEqual(['Alpha']);
    expect(await list([{ type: 'contains', field: 'location', value: 'oak' }])).toEqual(['Alpha', 'Gamma']);
    expect(await list([{ type: 'in', field: 'id', value: [ids.beta, ids.Gamma] }])).toEqual(['beta', 'Gamma']);
    expect(await list([{ type: 'not', condition: { type: 'eq', field: 'external_id', value: null } }])).toEqual(['Alpha', 'Gamma']);
    expect(await list([{ type: 'or', conditions: [{ type: 'eq', field: String(field), value: 1 }, { type: 'eq', field: 'external_id', value: 'G' }] }])).toEqual(['beta', 'Gamma']);
    expect(await list([{ type: 'eq', field: 'label', value: "x' OR 1=1 --" }])).toEqual(["x' OR 1=1 --"]);
  });
  it('7 for hostile or unknown field names and sort keys, bad limits', async () => {
    for (const [p, param] of [
      [{ conditions: [{ type: 'eq', field: 'label) OR 1=1 --', value: 'x' }] }, 'conditions.0.field'],
      [{ conditions: [{ type: 'eq', field: '999999', value: 'x' }] }, 'conditions.0.field'],
      [{ conditions: [{ type: 'contains', field: 'id', value: '1' }] }, 'conditions.0.field'],
      [{ order_by: 'label; DROP TABLE places' }, 'order_by'],
      [{ order_by: '999999' }, 'order_by'],
      [{ limit: 0 }, 'limit'],
      [{ offset: -1 }, 'offset'],
      [{ filter: 'x'.repeat(201) }, 'filter'],
    ] as const) {
      const r = await g.call('place/list', { hash: u.hash, ...p });
      expect(r.body.status?.code, JSON.stringify(p)).toBe(7);
      expect(r.body.errors[0].parameter).toBe(param);
    }
    expect(count(u.id)).toBe(4);
  });
});

describe('place/batch_convert', () => {
  it('converts rows in the default field order, geocodes addresses, resolves tag names; creates nothing', async () => {
    const u = await g.s.user('batch@example.com');
    const tag = (await g.call('tag/create', { hash: u.hash, tag: { name: 'Depots' } })).body.id;
    const batch = ['Store 1\tOak 1\t52.1\t13.2\t50\tfirst\tdepots, new one', 'Store 2\tBerlin', '\t\t91\t0', 'Store 4\tNowhere', 'Store 5\texplode', '"Quoted\tname"\t\t"1,5"\t2,5'].join('\n');
    const r = await g.call('place/batch_convert', { hash: u.hash, batch });
    expect(r.body.success).toBe(true);
    expect(r.body.limit_exceeded).toBe(false);
    const [a, b, c, d, e, f] = r.body.list;
    expect(a).toEqual({ label: 'Store 1', description: 'first', location: { lat: 52.1, lng: 13.2, address: 'Oak 1', radius: 50 }, external_id: null, tags: [tag], tag_names: ['depots', 'new one'] });
    expect(b).toEqual({ label: 'Store 2', description: '', location: { lat: 52.52, lng: 13.405, address: 'Berlin', radius: 100 }, external_id: null });
    expect(c.errors).toEqual([{ parameter: 'label', error: 'required' }, { parameter: 'lat', error: 'a latitude from -90 to 90 is expected' }]);
    expect(d.errors).toEqual([{ parameter: 'address', error: expect.stringContaining('found no such address') }]);
    expect(e.errors).toEqual([{ parameter: 'address', error: expect.stringContaining('unavailable') }]);
    expect(f).toMatchObject({ label: 'Quoted\tname', location: { lat: 1.5, lng: 2.5 } });
    expect(count(u.id)).toBe(0);
  });
  it('fields in another order, default_radius; external_id checked', async () => {
    const r = await g.call('place/batch_convert', { hash: ann.hash, batch: '1\t2\tP\tEXT\n3\t4\tQ\t' + 'x'.repeat(33), fields: ['lat', 'lng', 'label', 'external_id'], default_radius: 40 });
    expect(r.body.list[0]).toEqual({ label: 'P', description: '', location: { lat: 1, lng: 2, address: '', radius: 40 }, external_id: 'EXT' });
    expect(r.body.list[1].errors).toEqual([{ parameter: 'external_id', error: 'at most 32 characters' }]);
  });
  it('limit_exceeded: rows beyond the quota left are cut', async () => {
    const q = await userWithQuota('batchquota@example.com', 3);
    await g.call('place/create', { hash: q.hash, place: place() });
    const r = await g.call('place/batch_convert', { hash: q.hash, batch: 'a\t\t1\t1\nb\t\t1\t1\nc\t\t1\t1\n' });
    expect(r.body.list.map((p: any) => p.label)).toEqual(['a', 'b']);
    expect(r.body.limit_exceeded).toBe(true);
  });
  it('234 for a malformed batch; 201 for a file_id; 7 without batch or with unknown fields', async () => {
    expect((await g.call('place/batch_convert', { hash: ann.hash, batch: 'a\tb\tc\td\te\tf\tg\th' })).body.status.code).toBe(234);
    expect((await g.call('place/batch_convert', { hash: ann.hash, batch: '"open quote\t1' })).body.status.code).toBe(234);
    expect((await g.call('place/batch_convert', { hash: ann.hash, batch: 'bin\u0000ary' })).body.status.code).toBe(234);
    expect((await g.call('place/batch_convert', { hash: ann.hash, batch: 'x', file_id: 'abc' })).body.status.code).toBe(201);
    const none = await g.call('place/batch_convert', { hash: ann.hash });
    expect([none.body.status.code, none.body.errors[0].parameter]).toEqual([7, 'batch']);
    const bad = await g.call('place/batch_convert', { hash: ann.hash, batch: 'x', fields: ['label', 'color'] });
    expect([bad.body.status.code, bad.body.errors[0].parameter]).toEqual([7, 'fields.1']);
    expect((await g.call('place/batch_convert', { hash: ann.hash, batch: 'x', fields: ['label', 'label'] })).body.status.code).toBe(7);
    expect((await g.call('place/batch_convert', { hash: ann.hash, batch: 'x', default_radius: 0 })).body.errors[0].parameter).toBe('default_radius');
  });
});

describe('place/upload', () => {
  const HEADER = 'label;address;lat;lng;radius;external_id;description';
  const csv = (...rows: string[]) => ({ name: 'places.csv', type: 'text/csv', data: [HEADER, ...rows].join('\r\n') });
  const up = (hash: string, file: { name: string; type: string; data: string | Uint8Array } | undefined, extra: Record<string, string> = {}) =>
    g.upload('place/upload', { hash, error_policy: 'ignore', duplicate_policy: 'skip', ...extra }, file);

  it('imports rows: geocodes addresses, fills missing addresses, default_radius; counts', async () => {
    const u = await g.s.user('up1@example.com');
    const r = await up(u.hash, csv('One;Oak 1;1.5;2.5;30;E1;first', 'Two;Paris;;;;;', 'Three;;10;20;;;', 'Bad;;;;;;', 'Short;x'), { default_radius: '70' });
    expect(r.body).toMatchObject({ success: true, total: 5, errors: 2, created: 3, updated: 0, skipped: 0 });
    expect(r.body.row_errors).toEqual([
      { line: 5, parameter: 'lat', error: expect.any(String) },
      { line: 6, parameter: '(row)', error: expect.any(String) },
    ]);
    const list = (await g.call('place/list', { hash: u.hash })).body.list;
    expect(list.map((p: any) => [p.label, p.location, p.external_id, p.description])).toEqual([
      ['One', { lat: 1.5, lng: 2.5, address: 'Oak 1', radius: 30 }, 'E1', 'first'],
      ['Two', { lat: 48.8566, lng: 2.3522, address: 'Paris', radius: 70 }, null, ''],
      ['Three', { lat: 10, lng: 20, address: 'Near 10.00, 20.00', radius: 70 }, null, ''],
    ]);
  });
  it('error_policy fail: one bad row imports nothing (234)', async () => {
    const u = await g.s.user('up2@example.com');
    const r = await up(u.hash, csv('One;;1;2;;;', 'Two;;95;2;;;'), { error_policy: 'fail' });
    expect(r.body.status.code).toBe(234);
    expect(r.body).toMatchObject({ total: 2, errors: 1, row_errors: [{ line: 3, parameter: 'lat' }] });
    expect(count(u.id)).toBe(0);
  });
  it('duplicate_policy on external_id: skip, update, fail (247, nothing imported)', async () => {
    const u = await g.s.user('up3@example.com');
    await up(u.hash, csv('Old;;1;1;;K1;', 'Other;;1;1;;K2;'));
    const skip = await up(u.hash, csv('New;;2;2;;K1;', 'Fresh;;3;3;;K3;'));
    expect(skip.body).toMatchObject({ total: 2, errors: 0, created: 1, skipped: 1 });
    expect(g.s.store.places.byExternalId(u.id, 'K1')[0].label).toBe('Old');
    const upd = await up(u.hash, csv('Renamed;;2;2;;K1;new'), { duplicate_policy: 'update' });
    expect(upd.body).toMatchObject({ created: 0, updated: 1 });
    expect(g.s.store.places.byExternalId(u.id, 'K1')[0]).toMatchObject({ label: 'Renamed', lat: 2, description: 'new' });
    const n = count(u.id);
    const fail = await up(u.hash, csv('Brand new;;5;5;;K9;', 'Clash;;2;2;;K2;'), { duplicate_policy: 'fail' });
    expect(fail.body.status.code).toBe(247);
    expect(fail.body.external_ids).toEqual(['K2']);
    expect(count(u.id)).toBe(n);
    // Duplicates inside the file count too.
    expect((await up(u.hash, csv('A;;5;5;;Z1;', 'B;;5;5;;Z1;'), { duplicate_policy: 'fail' })).body.status.code).toBe(247);
    expect(count(u.id)).toBe(n);
  });
  it('268 when the file would pass the quota: nothing imported', async () => {
    const q = await userWithQuota('upquota@example.com', 2);
    const r = await up(q.hash, csv('a;;1;1;;;', 'b;;1;1;;;', 'c;;1;1;;;'));
    expect(r.body.status.code).toBe(268);
    expect(count(q.id)).toBe(0);
  });
  it('233 without a file part; 234 for a wrong header, a wrong type or broken quoting; 7 for bad policies', async () => {
    expect((await up(ann.hash, undefined)).body.status.code).toBe(233);
    expect((await up(ann.hash, { name: 'p.csv', type: 'text/csv', data: 'label,address,lat,lng\nx,y,1,2' })).body.status.code).toBe(234);
    expect((await up(ann.hash, { name: 'p.png', type: 'image/png', data: HEADER })).body.status.code).toBe(234);
    expect((await up(ann.hash, csv('"broken;;1;1;;;'))).body.status.code).toBe(234);
    expect((await up(ann.hash, { name: 'p.csv', type: 'text/csv', data: new Uint8Array([0xff, 0xfe, 0x00]) })).body.status.code).toBe(234);
    const bad = await up(ann.hash, csv(), { error_policy: 'sometimes' });
    expect([bad.body.status.code, bad.body.errors[0].parameter]).toEqual([7, 'error_policy']);
  });
  it('redirect_target: answers 303 to the target with the JSON answer', async () => {
    const u = await g.s.user('up4@example.com');
    const res = await up(u.hash, csv('R;;1;1;;;'), { redirect_target: 'https://app.example.com/done' });
    expect(res.status).toBe(303);
    const loc = new URL(res.headers.get('location')!);
    expect(loc.origin + loc.pathname).toBe('https://app.example.com/done');
    expect(JSON.parse(loc.searchParams.get('response')!)).toMatchObject({ success: true, total: 1, created: 1 });
    expect(count(u.id)).toBe(1);
  });
});
