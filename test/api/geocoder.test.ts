/** Geocoder calls over real HTTP (spec "Geocoder"; issue 4): offline data, fake Nominatim/Photon, cache, fallback. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createGeocoder } from '../../src/geocoder/index.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fakeNominatim, fakePhoton, type FakeService } from '../geocoder/fakes.ts';

let s: TestServer;
let nominatim: FakeService;
let photon: FakeService;
let ann: { id: number; hash: string };
let sub: { id: number; hash: string };

const TEXAS = { nw: { lat: 34, lng: -100 }, se: { lat: 30, lng: -94 } };
const env = (n: FakeService, p: FakeService, extra: Record<string, string> = {}) => ({
  FSM_GEOCODER_NOMINATIM_URL: n.url,
  FSM_GEOCODER_PHOTON_URL: p.url,
  FSM_GEOCODER_TYPES: 'geocoder_type_2:nominatim,geocoder_type_3:photon',
  ...extra,
});

beforeAll(async () => {
  [nominatim, photon] = await Promise.all([fakeNominatim(), fakePhoton()]);
  s = await startTestServer(env(nominatim, photon));
  ann = await s.user('ann@example.com');
  sub = await s.user('sub@example.com', { parent: 'ann@example.com', rights: [] });
});
afterAll(async () => {
  await s.close();
  await Promise.all([nominatim.close(), photon.close()]);
});

const search = (p: Record<string, unknown>, who = ann) => s.call('geocoder/search_address', { hash: who.hash, lang: 'en', ...p });
const locate = (p: Record<string, unknown>, who = ann) => s.call('geocoder/search_location', { hash: who.hash, goal: 'ui_user_action', ...p });

describe('geocoder/search_address, offline provider', () => {
  it('finds settlements by name, exact match then population, without details unless asked', async () => {
    const r = await search({ q: 'Paris' });
    expect(r.body.success).toBe(true);
    expect(r.body.locations.length).toBeGreaterThan(3);
    expect(r.body.locations[0]).toEqual({ lat: expect.closeTo(48.853, 2), lng: expect.closeTo(2.349, 2), address: 'Paris, France' });
    expect(r.body.locations.slice(1).map((l: any) => l.address)).toContain('Paris, Texas, United States');
    const d = await search({ q: 'paris', with_details: true });
    expect(d.body.locations[0].details).toEqual({ country: 'France', locality: 'Paris' });
    expect(d.body.locations.find((l: any) => l.address.includes('Texas')).details).toEqual({ country: 'United States', province: 'Texas', locality: 'Paris' });
  });
  it('is case and diacritics insensitive, matches prefixes and names the country in lang', async () => {
    expect((await search({ q: 'ZURICH' })).body.locations[0].address).toBe('Zürich, ZH, Switzerland');
    expect((await search({ q: 'zürich', lang: 'de' })).body.locations[0].address).toBe('Zürich, ZH, Schweiz');
    expect((await search({ q: 'Mosco' })).body.locations[0].address).toBe('Moscow, Russia');
    expect((await search({ q: 'Москва' })).body.locations).toEqual([]);
  });
  it('a country after a comma restricts the answer', async () => {
    const r = await search({ q: 'Paris, United States' });
    expect(r.body.locations.length).toBeGreaterThan(0);
    expect(r.body.locations.every((l: any) => l.address.endsWith('United States'))).toBe(true);
  });
  it('bounds raise what lies inside but filter nothing', async () => {
    const r = await search({ q: 'Paris', bounds: TEXAS });
    expect(r.body.locations[0].address).toBe('Paris, Texas, United States');
    expect(r.body.locations.map((l: any) => l.address)).toContain('Paris, France');
  });
  it('accepts "lat, lng" text: the point itself with its address', async () => {
    const r = await search({ q: ' 48.8566, 2.3522 ', with_details: true });
    expect(r.body.locations).toEqual([{ lat: 48.8566, lng: 2.3522, address: 'Paris, France', details: { country: 'France', locality: 'Paris' } }]);
    expect((await search({ q: '-33.87 151.21' })).body.locations[0].address).toMatch(/Sydney.*Australia/);
    // Nothing known there: the coordinates themselves are the address.
    expect((await search({ q: '0, -30' })).body.locations).toEqual([{ lat: 0, lng: -30, address: '0, -30' }]);
  });
  it('answers [] when nothing matches', async () => {
    expect((await search({ q: 'Qqqxxzz' })).body).toEqual({ success: true, locations: [] });
  });
});

describe('geocoder/search_location, offline provider', () => {
  it('answers the address of the nearest settlement and its country', async () => {
    expect((await locate({ location: { lat: 48.8566, lng: 2.3522 } })).body).toEqual({ success: true, value: 'Paris, France' });
    expect((await locate({ location: { lat: 30.27, lng: -97.74 }, with_details: true, goal: 'ui' })).body).toEqual({
      success: true,
      value: 'Austin, Texas, United States',
      details: { country: 'United States', province: 'Texas', locality: 'Austin' },
    });
    expect((await locate({ location: { lat: 48.8566, lng: 2.3522 }, lang: 'de_DE' })).body.value).toBe('Paris, Frankreich');
  });
  it("value '' and empty details where nothing is known (open sea)", async () => {
    expect((await locate({ location: { lat: 0, lng: -30 }, with_details: true })).body).toEqual({ success: true, value: '', details: {} });
  });
  it('takes parameters from the query string too', async () => {
    const q = new URLSearchParams({ hash: ann.hash, location: JSON.stringify({ lat: 52.52, lng: 13.405 }), goal: 'ui', with_details: 'true' });
    const r = await fetch(`${s.url}/v2/fsm/geocoder/search_location?${q}`);
    expect(await r.json()).toEqual({ success: true, value: 'Berlin, Germany', details: { country: 'Germany', locality: 'Berlin' } });
  });
  it('sub-users need no right; a session is required', async () => {
    expect((await locate({ location: { lat: 48.8566, lng: 2.3522 } }, sub)).body.value).toBe('Paris, France');
    expect((await search({ q: 'Paris' }, sub)).body.success).toBe(true);
    expect((await s.call('geocoder/search_location', { location: { lat: 1, lng: 1 }, goal: 'ui' })).body.status.code).toBe(4);
    expect((await s.call('geocoder/search_address', { hash: 'nope', q: 'Paris', lang: 'en' })).body.status.code).toBe(4);
  });
});

describe('code 7 naming the parameter', () => {
  it.each([
    ['geocoder/search_location', { location: { lat: 90.5, lng: 0 }, goal: 'ui' }, 'location.lat'],
    ['geocoder/search_location', { location: { lat: -91, lng: 0 }, goal: 'ui' }, 'location.lat'],
    ['geocoder/search_location', { location: { lat: 0, lng: 180.1 }, goal: 'ui' }, 'location.lng'],
    ['geocoder/search_location', { location: { lat: 0, lng: 'x' }, goal: 'ui' }, 'location.lng'],
    ['geocoder/search_location', { goal: 'ui' }, 'location'],
    ['geocoder/search_location', { location: { lat: 0, lng: 0 } }, 'goal'],
    ['geocoder/search_location', { location: { lat: 0, lng: 0 }, goal: 'batch' }, 'goal'],
    ['geocoder/search_location', { location: { lat: 0, lng: 0 }, goal: 'ui', geocoder: 'bing' }, 'geocoder'], // 'google' is the documentation's name of geocoder_type_1 since issue 23
    ['geocoder/search_location', { location: { lat: 0, lng: 0 }, goal: 'ui', lang: 'english please' }, 'lang'],
    ['geocoder/search_location', { location: { lat: 0, lng: 0 }, goal: 'ui', with_details: 'yes' }, 'with_details'],
    ['geocoder/search_address', { lang: 'en' }, 'q'],
    ['geocoder/search_address', { q: '   ', lang: 'en' }, 'q'],
    ['geocoder/search_address', { q: 'x'.repeat(513), lang: 'en' }, 'q'],
    ['geocoder/search_address', { q: '91, 10', lang: 'en' }, 'q'],
    ['geocoder/search_address', { q: '10, -181', lang: 'en' }, 'q'],
    ['geocoder/search_address', { q: 'Paris' }, 'lang'],
    ['geocoder/search_address', { q: 'Paris', lang: 'e' }, 'lang'],
    ['geocoder/search_address', { q: 'Paris', lang: 'en', geocoder: 'geocoder_type_6' }, 'geocoder'],
    ['geocoder/search_address', { q: 'Paris', lang: 'en', bounds: { nw: { lat: 30, lng: 0 }, se: { lat: 40, lng: 10 } } }, 'bounds.nw.lat'],
    ['geocoder/search_address', { q: 'Paris', lang: 'en', bounds: { nw: { lat: 95, lng: 0 }, se: { lat: 40, lng: 10 } } }, 'bounds.nw.lat'],
    ['geocoder/search_address', { q: 'Paris', lang: 'en', bounds: { nw: { lat: 50, lng: 0 }, se: { lat: 40, lng: 200 } } }, 'bounds.se.lng'],
    ['geocoder/search_address', { q: 'Paris', lang: 'en', bounds: { nw: { lat: 50, lng: 0 } } }, 'bounds.se'],
  ] as const)('%s %j -> %s', async (path, params, parameter) => {
    const before = nominatim.requests.length;
    const r = await s.call(path, { hash: ann.hash, ...params });
    expect(r.status).toBe(400);
    expect(r.body.status.code).toBe(7);
    expect(r.body.errors.map((e: any) => e.parameter)).toContain(parameter);
    expect(nominatim.requests.length).toBe(before);
  });
});

describe('remote providers (fake services on 127.0.0.1)', () => {
  it('Nominatim: search with details, viewbox and language passed on', async () => {
    const r = await search({ q: 'Main Street 5, Springfield', geocoder: 'geocoder_type_2', with_details: true, bounds: TEXAS, lang: 'de_DE' });
    expect(r.body.locations).toEqual([
      {
        lat: 39.799,
        lng: -89.644,
        address: 'Main Street 5, Springfield, Illinois, United States',
        details: { country: 'United States', province: 'Illinois', locality: 'Springfield', street: 'Main Street', house: '5', postcode: '62701', bounds: { nw: { lat: 39.7991, lng: -89.6441 }, se: { lat: 39.7989, lng: -89.6439 } } },
      },
    ]);
    const u = nominatim.requests.at(-1)!;
    expect(u.pathname).toBe('/search');
    expect(Object.fromEntries(u.searchParams)).toMatchObject({ q: 'Main Street 5, Springfield', format: 'jsonv2', 'accept-language': 'de', viewbox: '-100,34,-94,30' });
    expect(u.searchParams.has('bounded')).toBe(false);
  });
  it('Nominatim: reverse, and "Unable to geocode" is an empty answer, not a failure', async () => {
    expect((await locate({ location: { lat: 39.799, lng: -89.644 }, geocoder: 'geocoder_type_2' })).body.value).toBe('Main Street 5, Springfield, Illinois, United States');
    expect((await locate({ location: { lat: 0, lng: 0 }, geocoder: 'geocoder_type_2' })).body.value).toBe('');
  });
  it('caches: the provider is asked once per request, in memory and in SQLite', async () => {
    const q = { q: 'Springfield cache test', geocoder: 'geocoder_type_2' };
    const before = nominatim.requests.length;
    const [a, b] = await Promise.all([search(q), search(q)]);
    const c = await search({ ...q, q: '  springfield   CACHE test ' });
    expect(a.body.locations[0].address).toContain('Springfield');
    expect(b.body).toEqual(a.body);
    expect(c.body).toEqual(a.body);
    // Points within ~11 m (4 decimals) share an entry.
    await locate({ location: { lat: 40.12341, lng: -88.55551 }, geocoder: 'geocoder_type_2' });
    await locate({ location: { lat: 40.12344, lng: -88.55549 }, geocoder: 'geocoder_type_2' });
    expect(nominatim.requests.length - before).toBe(2);
    const rows = s.sql.prepare("SELECT provider, request, lang FROM geocoder_cache WHERE provider = 'nominatim' ORDER BY request").all();
    expect(rows).toEqual(expect.arrayContaining([
      { provider: 'nominatim', request: 'r:40.1234,-88.5555', lang: 'en' },
      { provider: 'nominatim', request: 's:springfield cache test|', lang: 'en' },
    ]));
    // A new service on the same database (an empty memory cache, e.g. after a restart) reads SQLite.
    const cfg = loadConfig({ FSM_DATA_DIR: s.dataDir, ...env(nominatim, photon) }).geocoder;
    const again = await createGeocoder(cfg, { cache: s.store.geocache }).search('Springfield cache test', { type: 'geocoder_type_2', lang: 'en' });
    expect(again[0].address).toBe(a.body.locations[0].address);
    expect(nominatim.requests.length - before).toBe(2);
  });
  it('another language is another entry', async () => {
    const before = nominatim.requests.length;
    await search({ q: 'Springfield lang test', geocoder: 'geocoder_type_2', lang: 'en' });
    await search({ q: 'Springfield lang test', geocoder: 'geocoder_type_2', lang: 'fr' });
    expect(nominatim.requests.length - before).toBe(2);
  });
  it("the user's default_geocoder is used when geocoder is absent", async () => {
    s.sql.prepare("UPDATE users SET default_geocoder = 'geocoder_type_2' WHERE id = ?").run(ann.id);
    const before = nominatim.requests.length;
    expect((await search({ q: 'Springfield default' })).body.locations[0].address).toContain('Springfield');
    expect(nominatim.requests.length - before).toBe(1);
    // The sub-user keeps its own setting (geocoder_type_1: offline, which knows no such settlement).
    expect((await search({ q: 'Springfield default' }, sub)).body.locations).toEqual([]);
    expect(nominatim.requests.length - before).toBe(1);
    s.sql.prepare("UPDATE users SET default_geocoder = 'geocoder_type_1' WHERE id = ?").run(ann.id);
  });
  it('Photon: search and reverse with details', async () => {
    const r = await search({ q: 'Brandenburger Tor', geocoder: 'geocoder_type_3', with_details: true, lang: 'ru' });
    expect(r.body.locations).toEqual([
      {
        lat: 52.5163,
        lng: 13.3777,
        address: 'Brandenburger Tor, Pariser Platz 1, Berlin, Deutschland',
        details: { country: 'Deutschland', province: 'Berlin', locality: 'Berlin', street: 'Pariser Platz', house: '1', postcode: '10117', bounds: { nw: { lat: 52.517, lng: 13.377 }, se: { lat: 52.516, lng: 13.378 } } },
      },
    ]);
    // Photon knows de, en, fr, it only: other languages are not sent.
    expect(photon.requests.at(-1)!.searchParams.has('lang')).toBe(false);
    const b = await search({ q: 'Brandenburger Tor 2', geocoder: 'geocoder_type_3', bounds: TEXAS, lang: 'fr' });
    expect(Object.fromEntries(photon.requests.at(-1)!.searchParams)).toMatchObject({ lang: 'fr', lat: '32', lon: '-97' });
    expect(b.body.success).toBe(true);
    expect((await locate({ location: { lat: 52.5163, lng: 13.3777 }, geocoder: 'geocoder_type_3' })).body.value).toBe('Brandenburger Tor, Pariser Platz 1, Berlin, Deutschland');
  });
  it('types mapped to nothing else answer offline', async () => {
    const before = nominatim.requests.length + photon.requests.length;
    expect((await locate({ location: { lat: 48.8566, lng: 2.3522 }, geocoder: 'geocoder_type_5' })).body.value).toBe('Paris, France');
    expect(nominatim.requests.length + photon.requests.length).toBe(before);
  });
});

describe('fallback to offline when a provider fails', () => {
  let f: TestServer;
  let n: FakeService;
  let p: FakeService;
  let u: { hash: string };
  beforeAll(async () => {
    [n, p] = await Promise.all([fakeNominatim(), fakePhoton()]);
    f = await startTestServer(env(n, p, { FSM_GEOCODER_TIMEOUT_MS: '300' }));
    u = { hash: (await f.user('fall@example.com')).hash };
  });
  afterAll(async () => {
    await f.close();
    await Promise.all([n.close(), p.close()]);
  });
  const fs = (params: Record<string, unknown>) => f.call('geocoder/search_address', { hash: u.hash, lang: 'en', geocoder: 'geocoder_type_2', ...params });
  const fl = (params: Record<string, unknown>) => f.call('geocoder/search_location', { hash: u.hash, geocoder: 'geocoder_type_2', ...params });

  it.each(['fail', 'garbage', 'slow'] as const)('%s: answers from offline data, caches nothing for the provider, asks it again next time', async (mode) => {
    n.mode = mode;
    const before = n.requests.length;
    const t = Date.now();
    const r = await fs({ q: `Paris` });
    expect(r.body.locations[0].address).toBe('Paris, France');
    expect(Date.now() - t).toBeLessThan(1400);
    expect(n.requests.length - before).toBe(1);
    expect(f.sql.prepare("SELECT COUNT(*) AS n FROM geocoder_cache WHERE provider = 'nominatim'").get()).toEqual({ n: 0 });
    // A user action always tries the provider again.
    await fs({ q: 'Paris' });
    expect(n.requests.length - before).toBe(2);
  });
  it('while the provider is failing, goal=ui answers offline at once; ui_user_action asks it', async () => {
    n.mode = 'fail';
    await fl({ location: { lat: 39.799, lng: -89.644 }, goal: 'ui_user_action' });
    const before = n.requests.length;
    expect((await fl({ location: { lat: 48.8566, lng: 2.3522 }, goal: 'ui' })).body.value).toBe('Paris, France');
    expect(n.requests.length).toBe(before);
    expect((await fl({ location: { lat: 48.8566, lng: 2.3522 }, goal: 'ui_user_action' })).body.value).toBe('Paris, France');
    expect(n.requests.length).toBe(before + 1);
    n.mode = 'ok';
    expect((await fl({ location: { lat: 39.799, lng: -89.644 }, goal: 'ui_user_action' })).body.value).toBe('Main Street 5, Springfield, Illinois, United States');
  });
});
