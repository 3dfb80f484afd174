/**
 * places, zones, employees and departments as documented (issue 23): every documented request
 * shape of the calls we implement, with our own fixtures, and the documented members of answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedServer, expectMembers, type Documented } from './harness.ts';

let d: Documented;
let tag: number;
beforeAll(async () => {
  d = await documentedServer('directories-doc@example.com');
  tag = (await d.ok('tag/create', { tag: { name: 'North', color: '#00BFFF' } })).id;
});
afterAll(() => d?.close());

// icon_id is documented as optional (absent until avatar/assign sets one).
const PLACE_MEMBERS = ['id', 'avatar_file_name', 'location', 'fields', 'label', 'description', 'tags', 'external_id'];
const ZONE_MEMBERS = ['id', 'type', 'label', 'address', 'color', 'bounds', 'tags'];
const EMPLOYEE_MEMBERS = ['id', 'tracker_id', 'first_name', 'middle_name', 'last_name', 'email', 'phone', 'driver_license_number', 'driver_license_cats', 'driver_license_issue_date', 'driver_license_valid_till', 'hardware_key', 'icon_id', 'avatar_file_name', 'department_id', 'location', 'personnel_number', 'ssn', 'tags'];
const DEPARTMENT_MEMBERS = ['id', 'label', 'location'];

describe('place (documented shapes)', () => {
  it('create, read, list (with its documented parameters), update, delete', async () => {
    const place = { location: { lat: 59.437, lng: 24.7536, address: 'Raekoja plats 1', radius: 120 }, label: 'Town hall', description: 'Deliveries at the back door', tags: [tag], external_id: 'TH-1' };
    const id = (await d.ok('place/create', { place, ignore_missing_fields: false })).id;
    const { value } = await d.ok('place/read', { place_id: id });
    expectMembers(value, PLACE_MEMBERS, 'place/read value');
    expect(value).toMatchObject({ ...place, id });
    const all = await d.ok('place/list', { place_ids: [id], filter: 'Town', order_by: 'label', ascending: false, limit: 10, offset: 0 });
    expect(all.count).toBe(1);
    for (const p of all.list) expectMembers(p, PLACE_MEMBERS, 'place/list item');
    const untagged = (await d.ok('place/create', { place: { ...place, label: 'Kiosk', tags: undefined, external_id: 'K-1' } })).id;
    expect((await d.ok('place/list', { tag_ids: [tag] })).list.map((p: { id: number }) => p.id)).toEqual([id]);
    expect(await d.call('place/delete', { place_id: untagged })).toEqual({ success: true });
    expect(await d.call('place/update', { place: { ...place, id, label: 'Old town hall' } })).toEqual({ success: true });
    expect(await d.call('place/delete', { place_id: id })).toEqual({ success: true });
  });
});

describe('zone (documented shapes)', () => {
  it('create circle and polygon, list, update, points, delete by zone_ids', async () => {
    const circle = (await d.ok('zone/create', { zone: { type: 'circle', label: 'Depot', address: 'Harbour 2', color: '27A9E3', radius: 150, center: { lat: 59.44, lng: 24.76 }, tags: [tag] } })).id;
    const ring = [
      { lat: 59.43, lng: 24.74, node: false },
      { lat: 59.43, lng: 24.76, node: false },
      { lat: 59.45, lng: 24.76, node: false },
      { lat: 59.45, lng: 24.74, node: false },
    ];
    const polygon = (await d.ok('zone/create', { zone: { type: 'polygon', label: 'Old town', address: '', color: 'FF0000', tags: [] }, points: ring })).id;
    const { list } = await d.ok('zone/list');
    for (const z of list) expectMembers(z, ZONE_MEMBERS, 'zone/list item');
    const c = list.find((z: { id: number }) => z.id === circle);
    expect(c).toMatchObject({ type: 'circle', radius: 150, center: { lat: 59.44, lng: 24.76 }, color: '27A9E3' });
    // 150 m around the center: about 0.00135 degrees of latitude, 0.00265 of longitude at 59.44 N.
    expect(c.bounds.nw.lat).toBeCloseTo(59.44135, 4);
    expect(c.bounds.se.lat).toBeCloseTo(59.43865, 4);
    expect(c.bounds.nw.lng).toBeCloseTo(24.75735, 3);
    expect(c.bounds.se.lng).toBeCloseTo(24.76265, 3);
    expect(list.find((z: { id: number }) => z.id === polygon).bounds).toEqual({ nw: { lat: 59.45, lng: 24.74 }, se: { lat: 59.43, lng: 24.76 } });
    expect(await d.call('zone/update', { zone: { id: circle, type: 'circle', label: 'Depot 2', address: 'Harbour 2', color: '00FF00', radius: 200, center: { lat: 59.44, lng: 24.76 }, tags: [] } })).toEqual({ success: true });
    const points = (await d.ok('zone/point/list', { zone_id: polygon })).list;
    for (const p of points) expectMembers(p, ['lat', 'lng'], 'zone/point/list item');
    expect(await d.call('zone/point/update', { zone_id: polygon, points: ring.slice(0, 3) })).toEqual({ success: true });
    expect(await d.call('zone/delete', { zone_ids: [circle, polygon] })).toEqual({ success: true });
  });
});

describe('employee and department (documented shapes)', () => {
  it('department create, list, update; employee create, read, list, update, delete', async () => {
    const department = { label: 'Couriers', location: { lat: 59.43, lng: 24.75, address: 'Narva mnt 5', radius: 150 } };
    const dep = (await d.ok('department/create', { department })).id;
    const deps = (await d.ok('department/list')).list;
    for (const x of deps) expectMembers(x, DEPARTMENT_MEMBERS, 'department/list item');
    expect(deps.find((x: { id: number }) => x.id === dep)).toMatchObject(department);
    expect(await d.call('department/update', { department: { ...department, id: dep, label: 'Riders' } })).toEqual({ success: true });
    const employee = {
      tracker_id: null,
      first_name: 'Mari',
      middle_name: '',
      last_name: 'Tamm',
      email: 'mari@example.com',
      phone: '3725550000',
      driver_license_number: 'ET123',
      driver_license_cats: 'B',
      driver_license_issue_date: '2021-05-01',
      driver_license_valid_till: '2031-05-01',
      hardware_key: null,
      department_id: dep,
      location: { lat: 59.43, lng: 24.75, address: 'Narva mnt 5' },
      personnel_number: '77',
      ssn: '38001010000',
      tags: [tag],
    };
    const id = (await d.ok('employee/create', { employee, force_reassign: false })).id;
    const { value } = await d.ok('employee/read', { employee_id: id });
    expectMembers(value, EMPLOYEE_MEMBERS, 'employee/read value');
    expect(value).toMatchObject({ ...employee, id });
    for (const e of (await d.ok('employee/list')).list) expectMembers(e, EMPLOYEE_MEMBERS, 'employee/list item');
    expect(await d.call('employee/update', { employee: { ...employee, id, last_name: 'Kask' }, force_reassign: false })).toEqual({ success: true });
    expect(await d.call('employee/delete', { employee_id: id })).toEqual({ success: true });
    expect(await d.call('department/delete', { department_id: dep })).toEqual({ success: true });
  });
});

/** POST multipart/form-data to the call, as the documentation's upload examples do. */
async function multipart(path: string, fields: Record<string, string>, file: { name: string; type: string; data: string }): Promise<any> {
  const form = new FormData();
  form.set('hash', d.hash);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  form.set('file', new Blob([file.data], { type: file.type }), file.name);
  return (await fetch(`${d.s.url}/v2/fsm/${path}`, { method: 'POST', body: form })).json();
}

describe('uploads (documented shapes)', () => {
  it('place/upload takes the documented CSV and parameters; answers total and errors', async () => {
    const csv = ['label;address;lat;lng;radius;external_id;description', 'Gate;Harbour 1;59.45;24.77;60;G-1;north gate', 'Broken;;;;;;'].join('\n');
    const r = await multipart('place/upload', { error_policy: 'ignore', duplicate_policy: 'skip', default_radius: '100', geocoder: 'osm' }, { name: 'places.csv', type: 'text/csv', data: csv });
    expect(r).toMatchObject({ success: true, total: 2, errors: 1 });
  });
  it('zone/upload takes a KML file, default_radius and dry_run; answers the zones ready to create', async () => {
    const kml = `<?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><name>Pier</name><Point><coordinates>24.77,59.45</coordinates></Point></Placemark></Document></kml>`;
    const r = await multipart('zone/upload', { default_radius: '50', dry_run: 'true' }, { name: 'zones.kml', type: 'application/vnd.google-earth.kml+xml', data: kml });
    expect(r.success).toBe(true);
    expect(r.list).toHaveLength(1);
    expect(r.list[0]).toMatchObject({ id: null, type: 'circle', label: 'Pier', radius: 50 });
  });
});
