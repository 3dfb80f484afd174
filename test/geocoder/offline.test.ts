/** The offline provider on its shipped data: nearest settlement, borders, name search, speed. */
import { beforeAll, describe, expect, it } from 'vitest';
import KDBush from 'kdbush';
import { around, distance } from 'geokdbush';
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
  it("finds the same nearest settlement as geokdbush's great-circle search, also at the poles and across the antimeridian", () => {
    const d = p.load();
    let seed = 11;
    const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const pts = [
      ...Array.from({ length: 5_000 }, () => [rnd() * 180 - 90, rnd() * 360 - 180]),
      // near settlements (a few km off one), where the box search answers from its first box
      ...Array.from({ length: 5_000 }, () => {
        const [lng, lat] = d.cities[Math.floor(rnd() * d.cities.length)].loc.coordinates;
        return [Math.max(-90, Math.min(90, lat + (rnd() - 0.5) * 0.3)), Math.max(-180, Math.min(180, lng + (rnd() - 0.5) * 0.3))];
      }),
      // Fiji and Chukotka lie on both sides of 180°; Svalbard, Alert and the South Pole far north and south
      ...Array.from({ length: 500 }, () => [-17 + (rnd() - 0.5) * 2, 180 - rnd() * 0.4]),
      ...Array.from({ length: 500 }, () => [-17 + (rnd() - 0.5) * 2, -180 + rnd() * 0.4]),
      ...Array.from({ length: 500 }, () => [65 + rnd() * 3, rnd() < 0.5 ? 179.9 + rnd() * 0.1 : -179.9 - rnd() * 0.1]),
      ...Array.from({ length: 500 }, () => [78 + rnd() * 12, rnd() * 360 - 180]),
      ...Array.from({ length: 500 }, () => [-90 + rnd() * 3, rnd() * 360 - 180]),
    ];
    const tree = new KDBush(d.cities.length);
    for (const c of d.cities) tree.add(c.loc.coordinates[0], c.loc.coordinates[1]);
    tree.finish();
    // The same settlement, or one as near (two settlements may share a place: geokdbush's queue picks
    // either, the box search the first in the data).
    const km = (i: number | undefined, lat: number, lng: number) => (i === undefined ? undefined : distance(lng, lat, ...d.cities[i].loc.coordinates));
    let found = 0;
    for (const [k, [lat, lng]] of pts.entries()) {
      const want = around(tree, lng, lat, 1, 50)[0] as number | undefined;
      expect(km(d.nearest(lng, lat, 50), lat, lng), `${lat}, ${lng}`).toBe(km(want, lat, lng));
      if (want !== undefined) found++;
      // Filtered (a point's own country; slow for geokdbush far from it): every fiftieth point.
      if (k % 50) continue;
      const ok = (i: number) => d.cities[i].country === 'US';
      expect(km(d.nearest(lng, lat, 50, ok), lat, lng), `${lat}, ${lng} (US only)`).toBe(km(around(tree, lng, lat, 1, 50, ok)[0], lat, lng));
    }
    expect(found).toBeGreaterThan(5_000);
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
