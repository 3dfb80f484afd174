/** Map layers over real HTTP (issue 13; spec: Map layer; Map layers, base path /map_layer; docs/map-layers.md). */
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LAYER_BYTES } from '../../src/imports/map-layer.ts';
import { startGeoTestServer, type GeoTestServer } from '../imports/harness.ts';
import { deflatePadded, zip } from '../imports/uploads.ts';

let g: GeoTestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
const KML_TYPE = 'application/vnd.google-earth.kml+xml';
const KML = `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>Depots — Süd</name>
 <Placemark><name>Yard &amp; gate</name><Point><coordinates>13.4,52.5</coordinates></Point></Placemark>
</Document></kml>`;
type File = { name: string; type: string; data: string | Uint8Array };
const kml = (text: string, name = 'layer.kml', type = KML_TYPE): File => ({ name, type, data: text });
const up = (hash: string, file?: File, fields: Record<string, string> = { label: 'Depots' }) => g.upload('map_layer/upload', { hash, ...fields }, file);
const stored = (userId: number) => g.s.sql.prepare('SELECT count(*) FROM map_layers WHERE user_id = ?').pluck().get(userId) as number;
/** The raw answer of map_layer/read (from the test server itself, same database): status, content type and body text. */
async function readRaw(hash: string, id: number) {
  const res = await fetch(`${g.s.url.replace(/\/$/, '')}/v2/fsm/map_layer/read`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ hash, id }) });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

beforeAll(async () => {
  g = await startGeoTestServer();
  ann = await g.s.user('ann@example.com');
  bob = await g.s.user('bob@example.com');
});
afterAll(() => g.close());

describe('map_layer/upload, list, read, update, delete', () => {
  it('a KML file becomes a layer; read answers the document byte for byte as KML in UTF-8', async () => {
    const u = await g.s.user('layers1@example.com');
    const r = await up(u.hash, kml(KML));
    expect(r.body).toEqual({ success: true, id: expect.any(Number) });
    expect((await g.call('map_layer/list', { hash: u.hash })).body).toEqual({ success: true, list: [{ id: r.body.id, label: 'Depots' }] });
    const read = await readRaw(u.hash, r.body.id);
    expect(read).toEqual({ status: 200, type: 'application/vnd.google-earth.kml+xml; charset=utf-8', text: KML });
  });
  it('KMZ: the KML inside is stored (doc.kml, other entries ignored)', async () => {
    const u = await g.s.user('layers2@example.com');
    const kmz = zipSync({ 'doc.kml': strToU8(KML), 'files/icon.png': new Uint8Array([1, 2, 3]) });
    const r = await up(u.hash, { name: 'layer.kmz', type: 'application/vnd.google-earth.kmz', data: kmz });
    expect(r.body.success).toBe(true);
    expect((await readRaw(u.hash, r.body.id)).text).toBe(KML);
  });
  it('a generic media type is accepted when the file name says .kml; a BOM is dropped', async () => {
    const u = await g.s.user('layers3@example.com');
    const r = await up(u.hash, { name: 'x.KML', type: 'application/octet-stream', data: new Uint8Array([0xef, 0xbb, 0xbf, ...strToU8('<kml/>')]) });
    expect(r.body.success).toBe(true);
    expect((await readRaw(u.hash, r.body.id)).text).toBe('<kml/>');
  });
  it('update changes the label; delete removes the layer; list in id order', async () => {
    const u = await g.s.user('layers4@example.com');
    const a = (await up(u.hash, kml(KML), { label: 'A' })).body.id;
    const b = (await up(u.hash, kml(KML), { label: 'B' })).body.id;
    expect((await g.call('map_layer/update', { hash: u.hash, layer: { id: a, label: '  Renamed ' } })).body).toEqual({ success: true });
    expect((await g.call('map_layer/list', { hash: u.hash })).body.list).toEqual([{ id: a, label: 'Renamed' }, { id: b, label: 'B' }]);
    expect((await g.call('map_layer/delete', { hash: u.hash, id: a })).body).toEqual({ success: true });
    expect((await g.call('map_layer/list', { hash: u.hash })).body.list).toEqual([{ id: b, label: 'B' }]);
    expect(stored(u.id)).toBe(1);
  });
  it('201 for an unknown id in read, update and delete', async () => {
    expect((await g.call('map_layer/read', { hash: ann.hash, id: 999999 })).body.status.code).toBe(201);
    expect((await g.call('map_layer/update', { hash: ann.hash, layer: { id: 999999, label: 'x' } })).body.status.code).toBe(201);
    expect((await g.call('map_layer/delete', { hash: ann.hash, id: 999999 })).body.status.code).toBe(201);
  });
  it('7 naming the parameter: no label, an empty label, update without layer.id', async () => {
    const r1 = await up(ann.hash, kml(KML), {});
    expect([r1.body.status.code, r1.body.errors[0].parameter]).toEqual([7, 'label']);
    const r2 = await up(ann.hash, kml(KML), { label: '   ' });
    expect([r2.body.status.code, r2.body.errors[0].parameter]).toEqual([7, 'label']);
    const r3 = await g.call('map_layer/update', { hash: ann.hash, layer: { label: 'x' } });
    expect([r3.body.status.code, r3.body.errors[0].parameter]).toEqual([7, 'layer.id']);
    expect(stored(ann.id)).toBe(0);
  });
});

describe('ownership', () => {
  it("another user's layer behaves as not found in every call; a sub-user works on its master's layers", async () => {
    const id = (await up(ann.hash, kml(KML), { label: 'Ann only' })).body.id;
    expect((await g.call('map_layer/list', { hash: bob.hash })).body.list).toEqual([]);
    expect((await g.call('map_layer/read', { hash: bob.hash, id })).body.status.code).toBe(201);
    expect((await g.call('map_layer/update', { hash: bob.hash, layer: { id, label: 'Taken' } })).body.status.code).toBe(201);
    expect((await g.call('map_layer/delete', { hash: bob.hash, id })).body.status.code).toBe(201);
    const annList = (await g.call('map_layer/list', { hash: ann.hash })).body.list;
    expect(annList).toEqual([{ id, label: 'Ann only' }]);
    expect((await readRaw(ann.hash, id)).text).toBe(KML);

    const sub = await g.s.user('ann-sub@example.com', { parent: 'ann@example.com', rights: [] });
    expect((await g.call('map_layer/list', { hash: sub.hash })).body.list).toEqual(annList);
    const own = (await up(sub.hash, kml('<kml/>'), { label: 'By sub' })).body.id;
    expect(g.s.sql.prepare('SELECT user_id FROM map_layers WHERE id = ?').pluck().get(own)).toBe(ann.id);
    expect((await g.call('map_layer/delete', { hash: ann.hash, id: own })).body.success).toBe(true);
    expect((await g.call('map_layer/delete', { hash: ann.hash, id })).body.success).toBe(true);
  });
});

describe('bad uploads: the error code, and nothing stored', () => {
  let u: { id: number; hash: string };
  beforeAll(async () => {
    u = await g.s.user('bad-uploads@example.com');
  });
  const refused = async (file: File | undefined, code: number, fields?: Record<string, string>) => {
    const r = await up(u.hash, file, fields);
    expect(r.body.success, JSON.stringify(r.body)).toBe(false);
    expect(r.body.status.code, JSON.stringify(r.body)).toBe(code);
    expect(stored(u.id)).toBe(0);
    return r;
  };

  it('233 without a file part, or with "file" sent as a plain field', async () => {
    await refused(undefined, 233);
    await refused(undefined, 233, { label: 'x', file: KML });
  });
  it('234 for another media type, whatever the name; a generic type with another name; a broken KMZ', async () => {
    await refused({ name: 'layer.kml', type: 'image/png', data: KML }, 234);
    await refused({ name: 'notes.txt', type: 'text/plain', data: KML }, 234);
    await refused({ name: 'layer.bin', type: 'application/octet-stream', data: KML }, 234);
    await refused({ name: 'layer.kmz', type: 'application/vnd.google-earth.kmz', data: new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]) }, 234);
  });
  it('242 for what is not KML: broken XML, another root, two roots, plain text, not UTF-8, another declared encoding, a KMZ without KML', async () => {
    for (const text of ['<kml><Document></kml>', '<html><body/></html>', '<kml/><kml/>', 'just text', '', '<?xml version="1.0" encoding="ISO-8859-1"?><kml/>']) await refused(kml(text), 242);
    await refused({ name: 'l.kml', type: KML_TYPE, data: new Uint8Array([...strToU8('<kml><name>'), 0xe9, ...strToU8('</name></kml>')]) }, 242);
    await refused({ name: 'l.kmz', type: 'application/vnd.google-earth.kmz', data: zipSync({ 'readme.txt': strToU8('no kml') }) }, 242);
  });
  it('242 for hostile XML, quickly: entity expansion, external entities, any DTD, deep nesting', async () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE kml [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;"><!ENTITY h "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;"><!ENTITY i "&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;">]><kml><name>&i;</name></kml>`;
    const xxe = `<?xml version="1.0"?><!DOCTYPE kml [<!ENTITY x SYSTEM "file:///etc/passwd">]><kml><name>&x;</name></kml>`;
    const dtd = `<!DOCTYPE kml SYSTEM "http://example.com/kml.dtd"><kml/>`;
    const deep = `<kml>${'<Folder>'.repeat(200)}${'</Folder>'.repeat(200)}</kml>`;
    for (const text of [laughs, xxe, dtd, deep]) {
      const t0 = performance.now();
      const r = await refused(kml(text), 242);
      expect(performance.now() - t0).toBeLessThan(1000);
      expect(JSON.stringify(r.body)).not.toContain('root:');
    }
  });
  it(`242 past the size limit (${MAX_LAYER_BYTES} bytes): a large KML, a KMZ that inflates past it, a zip bomb whose header lies`, async () => {
    const big = `<kml><description>${'x'.repeat(MAX_LAYER_BYTES)}</description></kml>`;
    const r = await refused(kml(big), 242);
    expect(r.body.max_bytes).toBe(MAX_LAYER_BYTES);
    await refused({ name: 'big.kmz', type: 'application/vnd.google-earth.kmz', data: zipSync({ 'doc.kml': strToU8(big) }) }, 242);
    const bomb = await deflatePadded('<kml><description>', 0x20, 1 << 30, '</description></kml>');
    const t0 = performance.now();
    await refused({ name: 'bomb.kmz', type: 'application/vnd.google-earth.kmz', data: zip([{ name: 'doc.kml', deflated: bomb, declaredSize: 100 }]) }, 242);
    expect(performance.now() - t0).toBeLessThan(3000);
  });
  it('268 over the tariff quota (max_map_layers), checked on every upload; deleting frees room', async () => {
    const q = await g.s.user('quota@example.com');
    const t = g.s.store.tariffs.copy(1, 'two layers');
    g.s.store.tariffs.update(t, { max_map_layers: 2 });
    g.s.sql.prepare('UPDATE users SET tariff_id = ? WHERE id = ?').run(t, q.id);
    const first = (await up(q.hash, kml(KML))).body.id;
    expect((await up(q.hash, kml(KML))).body.success).toBe(true);
    const r = await up(q.hash, kml(KML));
    expect(r.body).toMatchObject({ success: false, status: { code: 268 }, limit: 2 });
    expect(stored(q.id)).toBe(2);
    await g.call('map_layer/delete', { hash: q.hash, id: first });
    expect((await up(q.hash, kml(KML))).body.success).toBe(true);
  });
});

describe('redirect_target', () => {
  it('303 to the target with the answer, on success and on error', async () => {
    const u = await g.s.user('redirect@example.com');
    const ok = await up(u.hash, kml(KML), { label: 'R', redirect_target: 'https://app.example.com/layers?x=1' });
    expect(ok.status).toBe(303);
    const loc = new URL(ok.headers.get('location')!);
    expect(loc.origin + loc.pathname).toBe('https://app.example.com/layers');
    expect(loc.searchParams.get('x')).toBe('1');
    const answer = JSON.parse(loc.searchParams.get('response')!);
    expect(answer).toEqual({ success: true, id: expect.any(Number) });
    expect((await g.call('map_layer/list', { hash: u.hash })).body.list).toEqual([{ id: answer.id, label: 'R' }]);
    const bad = await up(u.hash, undefined, { label: 'R', redirect_target: 'https://app.example.com/layers' });
    expect(bad.status).toBe(303);
    expect(JSON.parse(new URL(bad.headers.get('location')!).searchParams.get('response')!).status.code).toBe(233);
    const foreign = await up(u.hash, kml(KML), { label: 'R', redirect_target: 'https://evil.example.net/' });
    expect([foreign.body.status.code, foreign.body.errors[0].parameter]).toEqual([7, 'redirect_target']);
    expect(stored(u.id)).toBe(1);
  });
});
