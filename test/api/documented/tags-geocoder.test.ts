/**
 * tag/* and geocoder/* as documented (issue 23): a colour given as "#00BFFF", tag/list's documented
 * members, tag/delete by tag_ids; the documentation's geocoder names (google, yandex, progorod, osm,
 * locationiq) as the five types in its order, in geocoder/* and in every batch call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geocoderParam } from '../../../src/api/schemas.ts';
import { fakeNominatim, fakePhoton, type FakeService } from '../../geocoder/fakes.ts';
import { documentedServer, expectMembers, type Documented } from './harness.ts';

let d: Documented;
let nominatim: FakeService;
let photon: FakeService;
beforeAll(async () => {
  [nominatim, photon] = await Promise.all([fakeNominatim(), fakePhoton()]);
  // yandex is type 2 (here a Nominatim), progorod type 3 (here a Photon); the others offline.
  d = await documentedServer('tags-geo-doc@example.com', 'UTC', {
    FSM_GEOCODER_NOMINATIM_URL: nominatim.url,
    FSM_GEOCODER_PHOTON_URL: photon.url,
    FSM_GEOCODER_TYPES: 'geocoder_type_2:nominatim,geocoder_type_3:photon',
  });
});
afterAll(async () => {
  await d?.close();
  await Promise.all([nominatim?.close(), photon?.close()]);
});

describe('tag (documented shapes)', () => {
  it('create and update take a colour with a leading #; list answers every documented member', async () => {
    const id = (await d.ok('tag/create', { tag: { name: 'team1', color: '#00BFFF' } })).id;
    const { list } = await d.ok('tag/list');
    for (const t of list) expectMembers(t, ['id', 'avatar_file_name', 'name', 'color'], 'tag/list item');
    expect(list).toEqual([{ id, avatar_file_name: null, name: 'team1', color: '00BFFF' }]);
    expect(await d.call('tag/update', { tag: { id, name: 'team1', color: '#ff0000' } })).toEqual({ success: true });
    expect((await d.ok('tag/list', { filter: null })).list[0].color).toBe('FF0000');
    expect((await d.call('tag/create', { tag: { name: 'bad', color: '##00BFFF' } })).status.code).toBe(7);
  });
  it('delete takes tag_ids (unknown ids silently) or tag_id (201 when unknown)', async () => {
    const a = (await d.ok('tag/create', { tag: { name: 'a-team', color: 'FF0000' } })).id;
    const b = (await d.ok('tag/create', { tag: { name: 'b-team', color: 'FF0000' } })).id;
    expect(await d.call('tag/delete', { tag_ids: [a, b, 999_999] })).toEqual({ success: true });
    expect((await d.ok('tag/list')).list.map((t: { id: number }) => t.id)).not.toContain(a);
    expect((await d.call('tag/delete', { tag_id: 999_999 })).status.code).toBe(201);
  });
});

describe('geocoder names of the documentation', () => {
  it('are the five types in the documented order', () => {
    expect(['google', 'yandex', 'progorod', 'osm', 'locationiq'].map((g) => geocoderParam.parse(g))).toEqual(['geocoder_type_1', 'geocoder_type_2', 'geocoder_type_3', 'geocoder_type_4', 'geocoder_type_5']);
    expect(geocoderParam.parse('geocoder_type_4')).toBe('geocoder_type_4');
    expect(geocoderParam.safeParse('bing').success).toBe(false);
  });
  it('geocoder/search_address and search_location route yandex and progorod to their types', async () => {
    const n = nominatim.requests.length;
    const p = photon.requests.length;
    const r = await d.ok('geocoder/search_address', { q: 'Springfield', lang: 'en', geocoder: 'yandex' });
    expectMembers(r.locations[0], ['lat', 'lng', 'address'], 'search_address location');
    expect(nominatim.requests.length).toBe(n + 1);
    const v = await d.ok('geocoder/search_location', { location: { lat: 39.78, lng: -89.65 }, geocoder: 'progorod', goal: 'ui', with_details: true });
    expectMembers(v, ['value', 'details'], 'search_location');
    expect(photon.requests.length).toBe(p + 1);
    for (const g of ['google', 'osm', 'locationiq']) expect((await d.call('geocoder/search_location', { location: { lat: 48.8566, lng: 2.3522 }, geocoder: g, goal: 'ui' })).success, g).toBe(true);
    expect((await d.call('geocoder/search_location', { location: { lat: 1, lng: 1 }, geocoder: 'bing', goal: 'ui' })).errors[0].parameter).toBe('geocoder');
  });
  it('every batch call takes them', async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ['place/batch_convert', { batch: 'Depot\tParis\t48.8566\t2.3522', fields: ['label', 'address', 'lat', 'lng'] }],
      ['zone/batch_convert', { batch: 'Depot\tParis\t48.8566\t2.3522', fields: ['label', 'address', 'lat', 'lng'] }],
      ['employee/batch_convert', { batch: 'Ona\t\tJonaite\tona@example.com\t37060000000', fields: ['first_name', 'middle_name', 'last_name', 'email', 'phone'] }],
      ['task/batch_convert', { batch: 'Deliver\t2030-01-10 09:00:00\t2030-01-10 12:00:00\tParis\t48.8566\t2.3522\tBox', fields: ['label', 'from', 'to', 'address', 'lat', 'lng', 'description'] }],
    ];
    for (const [path, p] of calls) {
      for (const geocoder of ['google', 'yandex', 'progorod', 'osm', 'locationiq']) {
        const r = await d.call(path, { ...p, geocoder });
        expect(r, `${path} ${geocoder}`).toMatchObject({ success: true, list: expect.any(Array), limit_exceeded: false });
      }
    }
  });
});
