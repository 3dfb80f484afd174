/**
 * Hostile and large uploads (issue 10, items 7-9): KMZ bombs (many large honest entries, a size
 * header that lies, a KML that alone inflates past the bound), deep nesting (non-KML and
 * MultiGeometry), and the largest allowed upload while other calls keep answering. Each answers
 * the documented code quickly (docs/places-zones.md) and leaves the zone list as it was.
 */
import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_KML_BYTES } from '../../src/imports/kml.ts';
import { startGeoTestServer, type GeoTestServer } from '../imports/harness.ts';
import { deflatePadded, largeKml, waitsDuring, zip } from '../imports/uploads.ts';

let g: GeoTestServer;
let ann: { id: number; hash: string };
const MiB = 1024 * 1024;
/** Generous on a loaded machine; bench/upload.ts prints the real figures. */
const QUICK_MS = 1000;

beforeAll(async () => {
  g = await startGeoTestServer();
  ann = await g.s.user('bombs@example.com');
});
afterAll(async () => {
  try {
    await g?.close();
  } finally {
    if (g) rmSync(g.s.dataDir, { recursive: true, force: true });
  }
});

const SMALL_KML = '<kml><Document><Placemark><name>Depot</name><Point><coordinates>13.4,52.5</coordinates></Point></Placemark></Document></kml>';
const kmz = (data: Uint8Array) => ({ name: 'zones.kmz', type: 'application/vnd.google-earth.kmz', data });
const kml = (text: string) => ({ name: 'zones.kml', type: 'application/vnd.google-earth.kml+xml', data: text });
const zoneList = async () => (await g.call('zone/list', { hash: ann.hash })).body.list;

/** Upload while zone/list is called over and over: the answer, its time and the worst wait of the other call. */
async function uploadTimed(file: { name: string; type: string; data: string | Uint8Array }, fields: Record<string, string> = {}) {
  const t0 = performance.now();
  const { result, waits } = await waitsDuring(
    g.upload('zone/upload', { hash: ann.hash, ...fields }, file).then((r) => ({ ...r, ms: performance.now() - t0 })),
    () => g.call('zone/list', { hash: ann.hash }),
  );
  return { ...result, worstWait: waits.worst };
}

describe('KMZ bombs (item 7)', () => {
  it('50 honest entries of 19 MiB: only doc.kml is inflated; the answer is quick and other calls keep answering', async () => {
    const big = await deflatePadded('<kml><Document>', 0x20, 19 * MiB, '</Document></kml>');
    const small = await deflatePadded(SMALL_KML, 0x20, 0, '');
    const entries = Array.from({ length: 50 }, (_, i) => ({ name: `layers/layer-${String(i).padStart(2, '0')}.kml`, deflated: big, declaredSize: 19 * MiB + 32 }));
    const before = await zoneList();
    const r = await uploadTimed(kmz(zip([...entries, { name: 'doc.kml', deflated: small, declaredSize: SMALL_KML.length }])));
    expect(r.body.success).toBe(true);
    expect(r.body.list.map((z: any) => z.label)).toEqual(['Depot']);
    expect(r.worstWait).toBeLessThan(QUICK_MS);
    expect(r.ms).toBeLessThan(10 * QUICK_MS);
    expect(await zoneList()).toEqual(before);
  });
  it('a size header that lies (2 MiB declared, 1 GiB inflated): 234 as soon as the bound is passed', async () => {
    const bomb = await deflatePadded('<kml>', 0x20, 1024 * MiB, '</kml>');
    const before = await zoneList();
    const r = await uploadTimed(kmz(zip([{ name: 'doc.kml', deflated: bomb, declaredSize: 2 * MiB }])), { dry_run: 'false' });
    expect(r.body.status).toEqual({ code: 234, description: `Invalid data format: the KML inside the KMZ inflates to more than ${MAX_KML_BYTES} bytes` });
    expect(r.body.max_bytes).toBe(MAX_KML_BYTES);
    expect(r.worstWait).toBeLessThan(QUICK_MS);
    expect(r.ms).toBeLessThan(5 * QUICK_MS);
    expect(await zoneList()).toEqual(before);
  });
  it('a KML that alone inflates past the bound (honest header): 234', async () => {
    const over = await deflatePadded('<kml>', 0x20, MAX_KML_BYTES, '</kml>');
    const before = await zoneList();
    const r = await uploadTimed(kmz(zip([{ name: 'doc.kml', deflated: over, declaredSize: MAX_KML_BYTES + 11 }])), { dry_run: 'false' });
    expect(r.body.status.code).toBe(234);
    expect(r.worstWait).toBeLessThan(QUICK_MS);
    expect(await zoneList()).toEqual(before);
  });
});

describe('deep nesting (item 8)', () => {
  const deep = (n: number, open: string, close: string, inner = '') => open.repeat(n) + inner + close.repeat(n);
  it('deeply nested non-KML XML: 242 quickly, not 500', async () => {
    const before = await zoneList();
    const r = await uploadTimed(kml(deep(100_000, '<a>', '</a>')), { dry_run: 'false' });
    expect([r.status, r.body.status]).toEqual([400, { code: 242, description: 'Validation error: not valid KML: elements nest deeper than 64 levels' }]);
    expect(r.ms).toBeLessThan(5 * QUICK_MS);
    expect(await zoneList()).toEqual(before);
  });
  it('deep MultiGeometry inside a placemark: 242 quickly, not 500', async () => {
    const before = await zoneList();
    const text = `<kml><Document><Placemark><name>M</name>${deep(50_000, '<MultiGeometry>', '</MultiGeometry>', '<Point><coordinates>1,1</coordinates></Point>')}</Placemark></Document></kml>`;
    const r = await uploadTimed(kml(text), { dry_run: 'false' });
    expect([r.status, r.body.status.code]).toEqual([400, 242]);
    expect(r.ms).toBeLessThan(5 * QUICK_MS);
    expect(await zoneList()).toEqual(before);
  });
  it('nesting at the bound is still read: MultiGeometry 50 deep gives its zone', async () => {
    const text = `<kml><Document><Placemark><name>M</name>${deep(50, '<MultiGeometry>', '</MultiGeometry>', '<Point><coordinates>1,1</coordinates></Point>')}</Placemark></Document></kml>`;
    const r = await g.upload('zone/upload', { hash: ann.hash }, kml(text));
    expect(r.body.list.map((z: any) => [z.label, z.center])).toEqual([['M', { lat: 1, lng: 1 }]]);
  });
});

describe('large uploads (item 9)', () => {
  it('the largest allowed upload (5000 polygons of 100 points) is stored while other calls answer promptly', async () => {
    const u = await g.s.user('large@example.com');
    const r = await waitsDuring(g.upload('zone/upload', { hash: u.hash, dry_run: 'false' }, kml(largeKml())), () => g.call('zone/list', { hash: ann.hash }));
    expect(r.result.body.list).toHaveLength(5000);
    expect(g.s.store.zones.count(u.id)).toBe(5000);
    expect(g.s.store.zones.points(r.result.body.list[4999])).toHaveLength(100);
    expect(r.waits.calls).toBeGreaterThan(5);
    expect(r.waits.worst).toBeLessThan(QUICK_MS);
  }, 300_000);
  it('one zone point more than the file bound (500,000): 234, nothing stored', async () => {
    const u = await g.s.user('over@example.com');
    const line = Array.from({ length: 101 }, (_, i) => `${(i / 1000).toFixed(3)},1`).join(' ');
    const text = largeKml(4999, 100).replace('</Document>', `<Placemark><LineString><coordinates>${line}</coordinates></LineString></Placemark></Document>`);
    const r = await g.upload('zone/upload', { hash: u.hash, dry_run: 'false' }, kml(text));
    expect(r.body).toEqual({ success: false, status: { code: 234, description: 'Invalid data format: at most 500000 zone points per file' }, max_points: 500_000 });
    expect(g.s.store.zones.count(u.id)).toBe(0);
  }, 180_000);
});
