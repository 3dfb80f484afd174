/**
 * zone/read, zone/search_location and place/search_location as documented: the zone object with
 * points on with_points, the {id, label} lists of the zones and places containing a location,
 * sub-users without rights (read calls), 201 for another user's zone and 7 naming the parameter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedServer, type Documented } from './harness.ts';

let d: Documented;
let sub: { hash: string };
let stranger: { hash: string };
let tag: number;
let circle: number;
let polygon: number;
let sausage: number;
const ring = [
  { lat: 48.19, lng: 16.36, node: false },
  { lat: 48.19, lng: 16.38, node: false },
  { lat: 48.21, lng: 16.38, node: false },
  { lat: 48.21, lng: 16.36, node: false },
];
const line = [
  { lat: 48.1, lng: 16.3, node: true },
  { lat: 48.1, lng: 16.32, node: false },
  { lat: 48.1, lng: 16.34, node: true },
];

beforeAll(async () => {
  d = await documentedServer('geo-search-doc@example.com');
  sub = await d.s.user('geo-search-sub@example.com', { parent: 'geo-search-doc@example.com', rights: [] });
  stranger = await d.s.user('geo-search-other@example.com');
  tag = (await d.ok('tag/create', { tag: { name: 'Vienna', color: 'FF0000' } })).id;
  circle = (await d.ok('zone/create', { zone: { type: 'circle', label: 'Karlsplatz', address: 'Karlsplatz, 2', color: '27A9E3', radius: 150, center: { lat: 48.20094, lng: 16.369856 }, tags: [tag] } })).id;
  polygon = (await d.ok('zone/create', { zone: { type: 'polygon', label: 'Centre', address: 'Innere Stadt', tags: [] }, points: ring })).id;
  sausage = (await d.ok('zone/create', { zone: { type: 'sausage', label: 'Road', address: 'Road 1', radius: 100, tags: [] }, points: line })).id;
});
afterAll(() => d?.close());

describe('zone/read', () => {
  it('answers the zone object as value; circles have no points', async () => {
    expect(await d.call('zone/read', { zone_id: circle })).toEqual({
      success: true,
      value: {
        id: circle,
        type: 'circle',
        label: 'Karlsplatz',
        address: 'Karlsplatz, 2',
        color: '27A9E3',
        tags: [tag],
        radius: 150,
        center: { lat: 48.20094, lng: 16.369856 },
        // The documentation's own example zone, with its bounds.
        bounds: { nw: { lat: 48.202289, lng: 16.367832 }, se: { lat: 48.199591, lng: 16.37188 } },
      },
    });
    expect((await d.call('zone/read', { zone_id: circle, with_points: true })).value.points).toBeUndefined();
  });
  it('with_points adds the points of polygons and sausages; without it they are left out', async () => {
    const bounds = { nw: { lat: 48.21, lng: 16.36 }, se: { lat: 48.19, lng: 16.38 } };
    const bare = { id: polygon, type: 'polygon', label: 'Centre', address: 'Innere Stadt', color: '27A9E3', tags: [], bounds };
    expect(await d.call('zone/read', { zone_id: polygon })).toEqual({ success: true, value: bare });
    expect(await d.call('zone/read', { zone_id: polygon, with_points: true })).toEqual({ success: true, value: { ...bare, points: ring } });
    const road = await d.call('zone/read', { zone_id: sausage, with_points: true });
    expect(road.value).toMatchObject({ id: sausage, type: 'sausage', radius: 100, points: line });
  });
  it('takes the documented GET query string', async () => {
    const res = await fetch(`${d.s.url}/v2/zone/read?hash=${d.hash}&zone_id=${polygon}&with_points=true`);
    expect((await res.json()).value.points).toEqual(ring);
  });
  it('a sub-user without rights reads it too', async () => {
    expect((await d.s.call('zone/read', { hash: sub.hash, zone_id: circle })).body.value.id).toBe(circle);
  });
  it('201 for an unknown zone and for another user\'s; 7 naming zone_id or with_points', async () => {
    expect(await d.call('zone/read', { zone_id: 999_999 })).toEqual({ success: false, status: { code: 201, description: 'Not found in the database: zone 999999' } });
    expect((await d.s.call('zone/read', { hash: stranger.hash, zone_id: circle })).body.status.code).toBe(201);
    const missing = await d.call('zone/read', {});
    expect(missing.status.code).toBe(7);
    expect(missing.errors.map((e: { parameter: string }) => e.parameter)).toEqual(['zone_id']);
    expect((await d.call('zone/read', { zone_id: circle, with_points: 'often' })).errors[0].parameter).toBe('with_points');
  });
});

describe('zone/list', () => {
  const ids = (r: { list: Array<{ id: number }> }) => r.list.map((z) => z.id);
  it('takes the documented filter, tag_ids, offset, limit and with_points', async () => {
    expect(ids(await d.call('zone/list'))).toEqual([circle, polygon, sausage]);
    // filter: a part of the label or the address, in any case.
    expect(ids(await d.call('zone/list', { filter: 'KARLS' }))).toEqual([circle]);
    expect(ids(await d.call('zone/list', { filter: 'innere' }))).toEqual([polygon]);
    expect(ids(await d.call('zone/list', { filter: 'nowhere' }))).toEqual([]);
    // tag_ids: zones carrying all of them.
    expect(ids(await d.call('zone/list', { tag_ids: [tag] }))).toEqual([circle]);
    // offset and limit page the list in id order.
    expect(ids(await d.call('zone/list', { offset: 1, limit: 1 }))).toEqual([polygon]);
    expect(ids(await d.call('zone/list', { offset: 2 }))).toEqual([sausage]);
    // with_points: polygons and sausages carry their points; without it none does.
    const withPoints = (await d.call('zone/list', { with_points: true })).list;
    expect(withPoints.map((z: { points?: unknown }) => z.points)).toEqual([undefined, ring, line]);
    expect((await d.call('zone/list')).list.every((z: { points?: unknown }) => z.points === undefined)).toBe(true);
  });
  it('7 naming a bad offset or limit', async () => {
    expect((await d.s.call('zone/list', { hash: d.hash, offset: -1 })).body).toMatchObject({ success: false, status: { code: 7 }, errors: [{ parameter: 'offset' }] });
    expect((await d.s.call('zone/list', { hash: d.hash, limit: 0 })).body).toMatchObject({ success: false, status: { code: 7 }, errors: [{ parameter: 'limit' }] });
  });
});

describe('zone/search_location', () => {
  it('lists id and label of every zone containing the location, in id order', async () => {
    // Karlsplatz lies inside the circle and the polygon, far from the road.
    expect(await d.call('zone/search_location', { location: { lat: 48.20094, lng: 16.369856 } })).toEqual({
      success: true,
      list: [
        { id: circle, label: 'Karlsplatz' },
        { id: polygon, label: 'Centre' },
      ],
    });
    // 50 m off the road's line is within its 100 m radius.
    expect((await d.ok('zone/search_location', { location: { lat: 48.10045, lng: 16.31 } })).list).toEqual([{ id: sausage, label: 'Road' }]);
    expect(await d.call('zone/search_location', { location: { lat: 0, lng: 0 } })).toEqual({ success: true, list: [] });
  });
  it("never another user's zones; a sub-user without rights searches its master's", async () => {
    expect((await d.s.call('zone/search_location', { hash: stranger.hash, location: { lat: 48.20094, lng: 16.369856 } })).body).toEqual({ success: true, list: [] });
    expect((await d.s.call('zone/search_location', { hash: sub.hash, location: { lat: 48.20094, lng: 16.369856 } })).body.list).toHaveLength(2);
  });
  it('7 naming location, or the bad coordinate', async () => {
    expect((await d.call('zone/search_location', {})).errors[0].parameter).toBe('location');
    expect((await d.call('zone/search_location', { location: { lat: 91, lng: 0 } })).errors[0].parameter).toBe('location.lat');
  });
});

describe('place/search_location', () => {
  it('lists id and label of every place whose circle contains the location, in id order', async () => {
    const hall = (await d.ok('place/create', { place: { label: 'Town hall', location: { lat: 48.2108, lng: 16.3571, address: 'Rathausplatz 1', radius: 100 } } })).id;
    const park = (await d.ok('place/create', { place: { label: 'Park', location: { lat: 48.2115, lng: 16.3571, address: 'Rathauspark', radius: 200 } } })).id;
    expect(await d.call('place/search_location', { location: { lat: 48.2108, lng: 16.3571 } })).toEqual({
      success: true,
      list: [
        { id: hall, label: 'Town hall' },
        { id: park, label: 'Park' },
      ],
    });
    // 150 m north of the hall: outside its 100 m, inside the park's 200 m.
    expect((await d.ok('place/search_location', { location: { lat: 48.21215, lng: 16.3571 } })).list).toEqual([{ id: park, label: 'Park' }]);
    expect((await d.s.call('place/search_location', { hash: sub.hash, location: { lat: 48.2108, lng: 16.3571 } })).body.list).toHaveLength(2);
    expect((await d.s.call('place/search_location', { hash: stranger.hash, location: { lat: 48.2108, lng: 16.3571 } })).body).toEqual({ success: true, list: [] });
  });
  it('7 naming location, or the bad coordinate', async () => {
    expect((await d.call('place/search_location', { location: 'here' })).errors[0].parameter).toBe('location');
    expect((await d.call('place/search_location', { location: { lat: 1, lng: 181 } })).errors[0].parameter).toBe('location.lng');
  });
});
