/** The offline provider on its shipped data: nearest settlement, borders, name search, speed. */
import { beforeAll, describe, expect, it } from 'vitest';
import { OfflineProvider } from '../../src/geocoder/offline.ts';
import { inBounds } from '../../src/geocoder/provider.ts';

const p = new OfflineProvider();
beforeAll(() => {
  p.load();
}, 30_000);

describe('reverse', () => {
  it('answers the nearest settlement, its province where known, and its country', () => {
    expect(p.reverseSync(48.8566, 2.3522, 'en')).toEqual({ lat: 48.8566, lng: 2.3522, address: 'Paris, France', details: { country: 'France', locality: 'Paris' } });
    expect(p.reverseSync(40.7128, -74.006, 'en')?.address).toBe('New York City, New York, United States');
    expect(p.reverseSync(47.3769, 8.5417, 'en')?.address).toMatch(/^Zürich, ZH, Switzerland$/);
    expect(p.reverseSync(-33.8688, 151.2093, 'en')?.details?.country).toBe('Australia');
  });
  it('prefers a settlement of the country the point lies in (border towns)', () => {
    // Nearest settlement is across the Rhine in both cases.
    expect(p.reverseSync(48.0, 7.62, 'en')?.address).toBe('Breisach am Rhein, Germany');
    expect(p.reverseSync(48.01, 7.6, 'en')?.address).toBe('Algolsheim, France');
  });
  it('country names follow lang where the data has them; settlement names do not', () => {
    expect(p.reverseSync(55.7558, 37.6173, 'ru')?.address).toBe('Moscow, Россия');
    expect(p.reverseSync(48.8566, 2.3522, 'de')?.address).toBe('Paris, Frankreich');
    expect(p.reverseSync(48.8566, 2.3522, 'xx')?.address).toBe('Paris, France');
  });
  it('far from any settlement: the country only; open sea: null', () => {
    const r = p.reverseSync(-80, 0, 'en');
    expect(r).toEqual({ lat: -80, lng: 0, address: 'Antarctica', details: { country: 'Antarctica' } });
    expect(p.reverseSync(0, -30, 'en')).toBeNull();
    expect(p.reverseSync(35, -40, 'en')).toBeNull();
  });
  it('takes well under 1 ms per point once loaded', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const pts = Array.from({ length: 5000 }, () => [rnd() * 130 - 55, rnd() * 360 - 180]);
    // CPU time of this process, not wall time (as the protocol fuzz test): on a shared machine, or
    // with another test file on the other core, the wall clock also counts the time others had the core.
    const c0 = process.cpuUsage();
    for (const [lat, lng] of pts) p.reverseSync(lat, lng, 'en');
    const used = process.cpuUsage(c0);
    const perPoint = (used.user + used.system) / 1000 / pts.length;
    expect(perPoint).toBeLessThan(0.5);
  });
});

describe('search', () => {
  const q = (text: string, extra: Partial<Parameters<OfflineProvider['search']>[1]> = {}) => p.search(text, { lang: 'en', limit: 10, ...extra });
  it('ranks an exact name before prefixes, then by population', async () => {
    const r = await q('Lond');
    expect(r[0].address).toBe('London, United Kingdom');
    const exact = await q('London');
    const names = exact.map((x) => x.details!.locality);
    const firstOther = names.findIndex((n) => n !== 'London');
    expect(firstOther).toBeGreaterThan(1);
    expect(names.slice(firstOther).every((n) => n !== 'London' && n!.startsWith('London'))).toBe(true);
    expect(exact[1].address).toBe('London, Canada');
  });
  it('respects the limit and answers [] for nothing', async () => {
    expect(await q('s', { limit: 3 })).toHaveLength(3);
    expect(await q('zzzzqqq')).toEqual([]);
    expect(await q(' , ')).toEqual([]);
  });
  it('bounds first, also across the antimeridian', async () => {
    const fiji = { nw: { lat: -10, lng: 170 }, se: { lat: -25, lng: -170 } };
    expect(inBounds(fiji, -18, 178)).toBe(true);
    expect(inBounds(fiji, -18, -175)).toBe(true);
    expect(inBounds(fiji, -18, 0)).toBe(false);
    const r = await q('Suva', { bounds: fiji });
    expect(r[0].address).toBe('Suva, Fiji');
  });
  it('a full address: the first later part that is a settlement name', async () => {
    expect((await q('10 Downing Street, London, United Kingdom'))[0].address).toBe('London, United Kingdom');
    expect((await q('Main Street 5, Springfield, US'))[0].address).toMatch(/^Springfield, .*, United States$/);
    // later parts match whole names only
    expect(await q('Main Street 5, Lond')).toEqual([]);
  });
  it('country code or name after a comma restricts the answer', async () => {
    expect((await q('Paris, CA'))[0].address).toBe('Paris, Canada');
    expect((await q('Paris, Frankreich'))[0].address).toBe('Paris, France');
  });
});
