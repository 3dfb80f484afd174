/** The geocoder service without HTTP: configuration, text helpers, LRU, cache expiry and in-flight sharing. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createGeocoder, offlineGeocoder, offlineTypes } from '../../src/geocoder/index.ts';
import { Lru } from '../../src/geocoder/lru.ts';
import { formatAddress, languageOf, normalize, parseCoordinates } from '../../src/geocoder/text.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { fakeNominatim, type FakeService } from './fakes.ts';

describe('settings', () => {
  it('defaults: every type offline, no URLs', () => {
    const g = loadConfig({}).geocoder;
    expect(g).toEqual({
      nominatimUrl: null,
      photonUrl: null,
      types: { geocoder_type_1: 'offline', geocoder_type_2: 'offline', geocoder_type_3: 'offline', geocoder_type_4: 'offline', geocoder_type_5: 'offline' },
      timeoutMs: 5000,
      cacheSize: 10000,
      cacheDays: 30,
    });
  });
  it('maps types to configured providers', () => {
    const g = loadConfig({ FSM_GEOCODER_NOMINATIM_URL: 'http://nominatim.local:8080/', FSM_GEOCODER_PHOTON_URL: 'https://photon.local', FSM_GEOCODER_TYPES: 'geocoder_type_1:nominatim, geocoder_type_4:photon' }).geocoder;
    expect(g.nominatimUrl).toBe('http://nominatim.local:8080');
    expect(g.types).toMatchObject({ geocoder_type_1: 'nominatim', geocoder_type_2: 'offline', geocoder_type_4: 'photon' });
  });
  it.each([
    [{ FSM_GEOCODER_NOMINATIM_URL: 'ftp://x' }, /FSM_GEOCODER_NOMINATIM_URL/],
    [{ FSM_GEOCODER_PHOTON_URL: 'not a url' }, /FSM_GEOCODER_PHOTON_URL/],
    [{ FSM_GEOCODER_TYPES: 'geocoder_type_9:offline' }, /unknown geocoder type/],
    [{ FSM_GEOCODER_TYPES: 'geocoder_type_1:google' }, /unknown provider/],
    [{ FSM_GEOCODER_TYPES: 'geocoder_type_1:nominatim' }, /FSM_GEOCODER_NOMINATIM_URL is not set/],
    [{ FSM_GEOCODER_TYPES: 'geocoder_type_1:photon' }, /FSM_GEOCODER_PHOTON_URL is not set/],
    [{ FSM_GEOCODER_TIMEOUT_MS: '10' }, /FSM_GEOCODER_TIMEOUT_MS/],
    [{ FSM_GEOCODER_CACHE_DAYS: '-1' }, /FSM_GEOCODER_CACHE_DAYS/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('offline look-ups of a report worker', () => {
  it('offlineTypes names the types no remote provider answers; reverseOffline answers as reverse does, through the same cache', async () => {
    const g = createGeocoder(loadConfig({ FSM_GEOCODER_NOMINATIM_URL: 'http://nominatim.local', FSM_GEOCODER_TYPES: 'geocoder_type_2:nominatim' }).geocoder);
    expect(offlineTypes(g)).toEqual(['geocoder_type_1', 'geocoder_type_3', 'geocoder_type_4', 'geocoder_type_5']);
    const w = offlineGeocoder(100);
    for (const [lat, lng, lang] of [[54.6872, 25.2797, 'en'], [55.7558, 37.6173, 'ru'], [-80, 0, 'en'], [0, -30, 'en'], [91, 0, 'en']] as const) {
      expect(w.reverseOffline(lat, lng, { lang })).toEqual(await g.reverse(lat, lng, { type: 'geocoder_type_1', lang }));
    }
    expect(w.reverseOffline(54.6872, 25.2797, { lang: 'en', withDetails: true })).toEqual(await g.reverse(54.6872, 25.2797, { lang: 'en', withDetails: true }));
    // Points ~11 m apart share an answer, as reverse's cache entries do.
    const first = w.reverseOffline(54.68721, 25.27971);
    expect(w.reverseOffline(54.68724, 25.27974)).toEqual({ ...first, lat: 54.68721, lng: 25.27971 });
  });
});

describe('text helpers', () => {
  it('normalize folds case, diacritics and punctuation', () => {
    expect(normalize('  Zürich  ')).toBe('zurich');
    expect(normalize('SÃO-Paulo')).toBe('sao paulo');
    expect(normalize('Norabats’')).toBe('norabats');
  });
  it('parseCoordinates', () => {
    expect(parseCoordinates('48.85, 2.35')).toEqual({ lat: 48.85, lng: 2.35, valid: true });
    expect(parseCoordinates('-33.9 151.2')).toEqual({ lat: -33.9, lng: 151.2, valid: true });
    expect(parseCoordinates('10;-20')).toEqual({ lat: 10, lng: -20, valid: true });
    expect(parseCoordinates('91, 0')?.valid).toBe(false);
    expect(parseCoordinates('Paris 15')).toBeUndefined();
    expect(parseCoordinates('1,2,3')).toBeUndefined();
  });
  it('formatAddress and languageOf', () => {
    expect(formatAddress({ street: 'Main St', house: '5', locality: 'Berlin', province: 'Berlin', country: 'Germany' })).toBe('Main St 5, Berlin, Germany');
    expect(formatAddress({})).toBe('');
    expect([languageOf('pt_BR'), languageOf('EN'), languageOf(undefined), languageOf('zh-Hans-CN')]).toEqual(['pt', 'en', '', 'zh']);
  });
  it('Lru drops the least recently used', () => {
    const l = new Lru<string, number>(2);
    l.set('a', 1);
    l.set('b', 2);
    l.get('a');
    l.set('c', 3);
    expect([l.get('a'), l.get('b'), l.get('c'), l.size]).toEqual([1, undefined, 3, 2]);
  });
});

describe('cache', () => {
  let store: Store;
  let dir: string;
  let n: FakeService;
  const env = () => ({ FSM_GEOCODER_NOMINATIM_URL: n.url, FSM_GEOCODER_TYPES: 'geocoder_type_1:nominatim' });
  beforeAll(async () => {
    n = await fakeNominatim();
    dir = mkdtempSync(join(tmpdir(), 'fsm-geo-'));
    store = openStore(join(dir, 'geo.sqlite'));
  });
  afterAll(async () => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
    await n.close();
  });

  it('concurrent identical requests share one provider request', async () => {
    const g = createGeocoder(loadConfig(env()).geocoder, { cache: store.geocache });
    const before = n.requests.length;
    const all = await Promise.all(Array.from({ length: 5 }, () => g.reverse(10.5, 20.5, { lang: 'en' })));
    expect(new Set(all.map((r) => r?.address))).toEqual(new Set(['Main Street 5, Springfield, Illinois, United States']));
    expect(n.requests.length - before).toBe(1);
    expect(all[0]).not.toHaveProperty('details');
    expect((await g.reverse(10.5, 20.5, { lang: 'en', withDetails: true }))?.details?.postcode).toBe('62701');
  });
  it('SQLite entries expire after FSM_GEOCODER_CACHE_DAYS and are pruned at start', async () => {
    let now = Date.UTC(2030, 0, 1);
    const cfg = loadConfig({ ...env(), FSM_GEOCODER_CACHE_DAYS: '2' }).geocoder;
    const g1 = createGeocoder(cfg, { cache: store.geocache, now: () => now });
    await g1.search('Springfield expiry', {});
    const before = n.requests.length;
    now += 86_400_000; // a day later, a fresh memory: still served from SQLite
    await createGeocoder(cfg, { cache: store.geocache, now: () => now }).search('Springfield expiry', {});
    expect(n.requests.length).toBe(before);
    now += 2 * 86_400_000; // expired: asked again
    const g3 = createGeocoder(cfg, { cache: store.geocache, now: () => now });
    await g3.search('Springfield expiry', {});
    expect(n.requests.length).toBe(before + 1);
    now += 3 * 86_400_000;
    createGeocoder(cfg, { cache: store.geocache, now: () => now });
    expect(store.geocache.count()).toBe(0);
  });
  it('FSM_GEOCODER_CACHE_DAYS=0 keeps nothing in SQLite', async () => {
    const g = createGeocoder(loadConfig({ ...env(), FSM_GEOCODER_CACHE_DAYS: '0' }).geocoder, { cache: store.geocache });
    await g.search('Springfield nothing kept', {});
    expect(store.geocache.count()).toBe(0);
  });
  it('out-of-range points and coordinates text answer nothing (callers validate)', async () => {
    const g = createGeocoder(loadConfig({}).geocoder);
    expect(await g.reverse(95, 0)).toBeNull();
    expect(await g.search('95, 0')).toEqual([]);
    expect(await g.search('   ')).toEqual([]);
  });
});
