/** Zones over real HTTP (issue 4; spec: Zone, Zones calls, KML import rules, Limits). */
import { zipSync, strToU8 } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeoTestServer, type GeoTestServer } from '../imports/harness.ts';

let g: GeoTestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
const geo = () => g.s.sql.prepare("SELECT value FROM versions WHERE name = 'geo'").pluck().get() as number;
const count = (userId: number) => g.s.store.zones.count(userId);
const square = [
  { lat: 0.1, lng: 0.1 },
  { lat: 0.1, lng: 0.2 },
  { lat: 0.2, lng: 0.2 },
  { lat: 0.2, lng: 0.1 },
];
const circle = (over: Record<string, unknown> = {}) => ({ type: 'circle', label: 'Ring', address: 'Main sq.', radius: 200, center: { lat: 52.5, lng: 13.4 }, ...over });
const line = (n: number) => Array.from({ length: n }, (_, i) => ({ lat: 50 + i * 0.001, lng: 10 + Math.sin(i) * 0.001, node: i % 10 === 0 }));
async function userWithQuota(login: string, max: number) {
  const u = await g.s.user(login);
  const t = g.s.store.tariffs.copy(1, `zone quota ${login}`);
  g.s.store.tariffs.update(t, { max_zones: max });
  g.s.sql.prepare('UPDATE users SET tariff_id = ? WHERE id = ?').run(t, u.id);
  return u;
}

beforeAll(async () => {
  g = await startGeoTestServer();
  ann = await g.s.user('ann@example.com');
  bob = await g.s.user('bob@example.com');
});
afterAll(() => g.close());

describe('zone/create, list, update, delete', () => {
  it('circle, polygon and sausage; list without points; geo version bumps', async () => {
    const tag = (await g.call('tag/create', { hash: ann.hash, tag: { name: 'zones' } })).body.id;
    const before = geo();
    const c = await g.call('zone/create', { hash: ann.hash, zone: circle({ tags: [tag], color: 'ff0000' }) });
    expect(c.body).toEqual({ success: true, id: expect.any(Number) });
    const p = await g.call('zone/create', { hash: ann.hash, zone: { type: 'polygon', label: 'Square', radius: 5 }, points: square });
    const s = await g.call('zone/create', { hash: ann.hash, zone: { type: 'sausage', label: 'Road', radius: 30 }, points: line(5) });
    expect(geo()).toBeGreaterThan(before);
    const list = (await g.call('zone/list', { hash: ann.hash })).body.list;
    expect(list).toEqual([
      // bounds: documented (issue 23); test/api/documented/directories.test.ts checks their values.
      { id: c.body.id, type: 'circle', label: 'Ring', address: 'Main sq.', color: 'FF0000', tags: [tag], radius: 200, center: { lat: 52.5, lng: 13.4 }, bounds: expect.any(Object) },
      // An empty address comes from the geocoder, at the mean of the points.
      { id: p.body.id, type: 'polygon', label: 'Square', address: 'Near 0.15, 0.15', color: '27A9E3', tags: [], bounds: { nw: { lat: 0.2, lng: 0.1 }, se: { lat: 0.1, lng: 0.2 } } },
      { id: s.body.id, type: 'sausage', label: 'Road', address: expect.stringMatching(/^Near 50\.00, 10\.00$/), color: '27A9E3', tags: [], radius: 30, bounds: expect.any(Object) },
    ]);
    expect((await g.call('zone/point/list', { hash: ann.hash, zone_id: p.body.id })).body.list).toEqual(square.map((q) => ({ ...q, node: false })));
  });
  it('update replaces members; color back to default when omitted; 231 for another type; 201 for unknown', async () => {
    const id = (await g.call('zone/create', { hash: ann.hash, zone: circle({ color: '00FF00' }) })).body.id;
    const before = geo();
    expect((await g.call('zone/update', { hash: ann.hash, zone: circle({ id, label: 'Renamed', radius: 300, address: '' }) })).body).toEqual({ success: true });
    expect(geo()).toBeGreaterThan(before);
    expect(g.s.store.zones.get(ann.id, id)).toMatchObject({ label: 'Renamed', radius: 300, color: '27A9E3', address: 'Near 52.50, 13.40' });
    const r = await g.call('zone/update', { hash: ann.hash, zone: { id, type: 'polygon', label: 'Nope' } });
    expect(r.body.status.code).toBe(231);
    expect((await g.call('zone/update', { hash: ann.hash, zone: circle({ id: 99999999 }) })).body.status.code).toBe(201);
    expect(g.s.store.zones.get(ann.id, id)!.label).toBe('Renamed');
  });
  it('7 naming the parameter: missing center or radius, bad color, tags not a list, bad points', async () => {
    const n = count(ann.id);
    for (const [p, param] of [
      [{ zone: circle({ center: undefined }) }, 'zone.center'],
      [{ zone: circle({ radius: undefined }) }, 'zone.radius'],
      [{ zone: { type: 'sausage', label: 'S' }, points: square }, 'zone.radius'],
      [{ zone: circle({ color: 'red' }) }, 'zone.color'],
      [{ zone: circle({ tags: { north: 1 } }) }, 'zone.tags'],
      [{ zone: circle({ type: 'square' }) }, 'zone.type'],
      [{ zone: circle({ label: '' }) }, 'zone.label'],
      [{ zone: { type: 'polygon', label: 'P' } }, 'points'],
      [{ zone: { type: 'polygon', label: 'P' }, points: square.slice(0, 2) }, 'points'],
      [{ zone: { type: 'polygon', label: 'P' }, points: [{ lat: 100, lng: 0 }, ...square] }, 'points.0.lat'],
    ] as const) {
      const r = await g.call('zone/create', { hash: ann.hash, ...p });
      expect(r.body.status?.code, param).toBe(7);
      expect(r.body.errors[0].parameter).toBe(param);
    }
    expect(count(ann.id)).toBe(n);
  });
  it('230 for points on a circle; 202 beyond 100 polygon or 1024 sausage points; nothing stored', async () => {
    const n = count(ann.id);
    expect((await g.call('zone/create', { hash: ann.hash, zone: circle(), points: square })).body.status.code).toBe(230);
    expect((await g.call('zone/create', { hash: ann.hash, zone: { type: 'polygon', label: 'Big' }, points: line(101) })).body.status.code).toBe(202);
    expect((await g.call('zone/create', { hash: ann.hash, zone: { type: 'polygon', label: 'Max' }, points: line(100) })).body.success).toBe(true);
    expect((await g.call('zone/create', { hash: ann.hash, zone: { type: 'sausage', label: 'Long', radius: 9 }, points: line(1025) })).body.status.code).toBe(202);
    expect((await g.call('zone/create', { hash: ann.hash, zone: { type: 'sausage', label: 'Longest', radius: 9 }, points: line(1024) })).body.success).toBe(true);
    expect(count(ann.id)).toBe(n + 2);
  });
  it('268 over max_zones', async () => {
    const q = await userWithQuota('zq@example.com', 1);
    expect((await g.call('zone/create', { hash: q.hash, zone: circle() })).body.success).toBe(true);
    expect((await g.call('zone/create', { hash: q.hash, zone: circle() })).body.status.code).toBe(268);
    expect(count(q.id)).toBe(1);
  });
  it('delete: one or several, all or none; 201 for unknown or another user\'s; 203 naming the rules; 7 for both or neither', async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await g.call('zone/create', { hash: ann.hash, zone: circle({ label: `D${i}` }) })).body.id);
    const bobs = (await g.call('zone/create', { hash: bob.hash, zone: circle() })).body.id;
    expect((await g.call('zone/delete', { hash: ann.hash, zone_ids: [ids[0], bobs] })).body.status.code).toBe(201);
    expect((await g.call('zone/delete', { hash: bob.hash, zone_id: ids[0] })).body.status.code).toBe(201);
    expect(g.s.store.zones.get(ann.id, ids[0])).toBeDefined();
    const rule = Number(g.s.sql.prepare('INSERT INTO rules (user_id, label) VALUES (?, ?)').run(ann.id, 'speeding').lastInsertRowid);
    g.s.sql.prepare('INSERT INTO rule_zones (rule_id, zone_id) VALUES (?, ?)').run(rule, ids[2]);
    const used = await g.call('zone/delete', { hash: ann.hash, zone_ids: [ids[1], ids[2]] });
    expect(used.body).toMatchObject({ success: false, status: { code: 203 }, entities: [{ type: 'rules', ids: [rule] }] });
    expect(g.s.store.zones.get(ann.id, ids[1])).toBeDefined();
    expect((await g.call('zone/delete', { hash: ann.hash, zone_id: ids[0], zone_ids: [ids[1]] })).body.errors[0].parameter).toBe('zone_ids');
    expect((await g.call('zone/delete', { hash: ann.hash })).body.errors[0].parameter).toBe('zone_id');
    expect((await g.call('zone/delete', { hash: ann.hash, zone_ids: [ids[0], ids[1]] })).body).toEqual({ success: true });
    expect((await g.call('zone/delete', { hash: ann.hash, zone_id: ids[0] })).body.status.code).toBe(201);
    expect(g.s.sql.prepare('SELECT COUNT(*) FROM zone_points WHERE zone_id IN (?, ?)').pluck().get(ids[0], ids[1])).toBe(0);
  });
});

describe('zone points', () => {
  it('point/list simplifies to count points keeping first and last; point/update replaces them', async () => {
    const pts = line(200);
    const id = (await g.call('zone/create', { hash: ann.hash, zone: { type: 'sausage', label: 'Curvy', radius: 10 }, points: pts })).body.id;
    const simple = (await g.call('zone/point/list', { hash: ann.hash, zone_id: id, count: 20 })).body.list;
    expect(simple).toHaveLength(20);
    expect(simple[0]).toEqual(pts[0]);
    expect(simple[19]).toEqual(pts[199]);
    expect((await g.call('zone/point/list', { hash: ann.hash, zone_id: id, count: 500 })).body.list).toHaveLength(200);
    expect((await g.call('zone/point/list', { hash: ann.hash, zone_id: id, count: 2 })).body.errors[0].parameter).toBe('count');
    const before = geo();
    expect((await g.call('zone/point/update', { hash: ann.hash, zone_id: id, points: square })).body).toEqual({ success: true });
    expect(geo()).toBeGreaterThan(before);
    expect((await g.call('zone/point/list', { hash: ann.hash, zone_id: id })).body.list).toEqual(square.map((q) => ({ ...q, node: false })));
  });
  it('Visvalingam keeps the corners of a dense square outline', async () => {
    const outline = [];
    for (let i = 0; i < 25; i++) outline.push({ lat: 0, lng: i / 25 });
    for (let i = 0; i < 25; i++) outline.push({ lat: i / 25, lng: 1 });
    for (let i = 0; i < 25; i++) outline.push({ lat: 1, lng: 1 - i / 25 });
    for (let i = 0; i < 25; i++) outline.push({ lat: 1 - i / 25, lng: 0 });
    const id = (await g.call('zone/create', { hash: ann.hash, zone: { type: 'polygon', label: 'Box' }, points: outline })).body.id;
    const five = (await g.call('zone/point/list', { hash: ann.hash, zone_id: id, count: 5 })).body.list.map((p: any) => [p.lat, p.lng]);
    expect(five).toEqual([[0, 0], [0, 1], [1, 1], [1, 0], [1 - 24 / 25, 0]]);
  });
  it('230 for circles, 201 for another user\'s zone, 7 below 3 points, 202 over the limit; nothing changes', async () => {
    const c = (await g.call('zone/create', { hash: ann.hash, zone: circle() })).body.id;
    const p = (await g.call('zone/create', { hash: ann.hash, zone: { type: 'polygon', label: 'P' }, points: square })).body.id;
    expect((await g.call('zone/point/list', { hash: ann.hash, zone_id: c })).body.status.code).toBe(230);
    expect((await g.call('zone/point/update', { hash: ann.hash, zone_id: c, points: square })).body.status.code).toBe(230);
    expect((await g.call('zone/point/list', { hash: bob.hash, zone_id: p })).body.status.code).toBe(201);
    expect((await g.call('zone/point/update', { hash: bob.hash, zone_id: p, points: square })).body.status.code).toBe(201);
    expect((await g.call('zone/point/update', { hash: ann.hash, zone_id: p, points: square.slice(0, 2) })).body.errors[0].parameter).toBe('points');
    expect((await g.call('zone/point/update', { hash: ann.hash, zone_id: p, points: line(101) })).body.status.code).toBe(202);
    expect(g.s.store.zones.points(p)).toHaveLength(4);
    expect(g.s.store.zones.points(c)).toHaveLength(0);
  });
});

describe('zone/batch_convert', () => {
  it('circle zones from rows, default radius 100, geocoded addresses, row errors; nothing created', async () => {
    const u = await g.s.user('zbatch@example.com');
    const tag = (await g.call('tag/create', { hash: u.hash, tag: { name: 'Stops' } })).body.id;
    const r = await g.call('zone/batch_convert', { hash: u.hash, batch: 'Stop A\tOak 1\t1\t2\t50\tstops;other\nStop B\tBerlin\nStop C\n\tnowhere\t\t\t-5' });
    expect(r.body.limit_exceeded).toBe(false);
    expect(r.body.list).toEqual([
      { type: 'circle', label: 'Stop A', address: 'Oak 1', color: '27A9E3', radius: 50, center: { lat: 1, lng: 2 }, tags: [tag], tag_names: ['stops', 'other'] },
      { type: 'circle', label: 'Stop B', address: 'Berlin', color: '27A9E3', radius: 100, center: { lat: 52.52, lng: 13.405 } },
      { type: 'circle', label: 'Stop C', address: '', color: '27A9E3', radius: 100, center: { lat: null, lng: null }, errors: [{ parameter: 'lat', error: 'lat and lng are required when no address is given' }] },
      {
        type: 'circle', label: '', address: 'nowhere', color: '27A9E3', radius: 100, center: { lat: null, lng: null },
        errors: [{ parameter: 'label', error: 'required' }, { parameter: 'radius', error: expect.any(String) }, { parameter: 'address', error: expect.any(String) }],
      },
    ]);
    expect(count(u.id)).toBe(0);
  });
  it('limit_exceeded by quota; 234 malformed; 201 file_id; 7 for bad fields', async () => {
    const q = await userWithQuota('zbq@example.com', 1);
    const r = await g.call('zone/batch_convert', { hash: q.hash, batch: 'a\t\t1\t1\nb\t\t1\t1' });
    expect([r.body.list.length, r.body.limit_exceeded]).toEqual([1, true]);
    expect((await g.call('zone/batch_convert', { hash: ann.hash, batch: '1\t2\t3\t4\t5\t6\t7' })).body.status.code).toBe(234);
    expect((await g.call('zone/batch_convert', { hash: ann.hash, file_id: 'f1' })).body.status.code).toBe(201);
    expect((await g.call('zone/batch_convert', { hash: ann.hash, batch: 'x', fields: ['description'] })).body.errors[0].parameter).toBe('fields.0');
    expect((await g.call('zone/batch_convert', { hash: ann.hash, batch: 'x\tAB', fields: ['label', 'color'] })).body.list[0].errors).toEqual([{ parameter: 'color', error: expect.any(String) }, expect.objectContaining({ parameter: 'lat' })]);
  });
});

const KML = `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2">
 <Document><name>Plan</name>
  <Placemark><name>Depot &amp; yard n&#176;1</name><Point><coordinates>13.4,52.5,0</coordinates></Point></Placemark>
  <Folder><name>Routes</name>
   <Folder><name>North</name>
    <Placemark><name>Highway</name><LineString><coordinates>10,50 10.1,50.1 10.2,50.2</coordinates></LineString></Placemark>
   </Folder>
   <Placemark><name>Short</name><LineString><coordinates>1,1 1.2,1.2</coordinates></LineString></Placemark>
  </Folder>
  <Placemark><name>Field</name><Polygon>
    <outerBoundaryIs><LinearRing><coordinates>0,0 0,1 1,1 1,0 0,0</coordinates></LinearRing></outerBoundaryIs>
    <innerBoundaryIs><LinearRing><coordinates>0.2,0.2 0.2,0.3 0.3,0.3 0.2,0.2</coordinates></LinearRing></innerBoundaryIs>
  </Polygon></Placemark>
  <Placemark><MultiGeometry><Point><coordinates>5,5</coordinates></Point><Point><coordinates>6,6</coordinates></Point></MultiGeometry></Placemark>
 </Document>
</kml>`;
const kmlFile = (text: string, name = 'zones.kml', type = 'application/vnd.google-earth.kml+xml') => ({ name, type, data: text });
const placemarks = (n: number, geometry: (i: number) => string) =>
  `<kml><Document>${Array.from({ length: n }, (_, i) => `<Placemark><name>P${i}</name>${geometry(i)}</Placemark>`).join('')}</Document></kml>`;
const coords = (n: number) => Array.from({ length: n }, (_, i) => `${(i / n).toFixed(5)},${(Math.sin(i) / 10).toFixed(5)}`).join(' ');

describe('zone/upload', () => {
  const up = (hash: string, file?: { name: string; type: string; data: string | Uint8Array }, extra: Record<string, string> = {}) => g.upload('zone/upload', { hash, ...extra }, file);

  it('dry run (the default): zones ready to create, named after the Document/Folder hierarchy; nothing created', async () => {
    const u = await g.s.user('kml1@example.com');
    const r = await up(u.hash, kmlFile(KML));
    expect(r.body.success).toBe(true);
    const z = r.body.list;
    expect(z.map((x: any) => [x.type, x.label])).toEqual([
      ['circle', 'Plan / Depot & yard n°1'],
      ['sausage', 'Plan / Routes / North / Highway'],
      ['sausage', 'Plan / Routes / Short'],
      ['polygon', 'Plan / Field'],
      ['circle', 'Plan / Placemark 5 (1)'],
      ['circle', 'Plan / Placemark 5 (2)'],
    ]);
    expect(z[0]).toEqual({ id: null, type: 'circle', label: 'Plan / Depot & yard n°1', address: '', color: '27A9E3', tags: [], radius: 150, center: { lat: 52.5, lng: 13.4 } });
    expect(z[1]).toMatchObject({ id: null, radius: 150, points: [{ lat: 50, lng: 10, node: true }, { lat: 50.1, lng: 10.1, node: true }, { lat: 50.2, lng: 10.2, node: true }] });
    expect(z[2].points).toEqual([{ lat: 1, lng: 1, node: true }, { lat: 1.1, lng: 1.1, node: false }, { lat: 1.2, lng: 1.2, node: true }]);
    // Outer boundary only, closing point dropped.
    expect(z[3].points).toEqual([{ lat: 0, lng: 0, node: false }, { lat: 1, lng: 0, node: false }, { lat: 1, lng: 1, node: false }, { lat: 0, lng: 1, node: false }]);
    expect(z[3].radius).toBeUndefined();
    expect(count(u.id)).toBe(0);
  });
  it('dry_run=false creates the zones with points and addresses and answers their ids; default_radius', async () => {
    const u = await g.s.user('kml2@example.com');
    const r = await up(u.hash, kmlFile(KML), { dry_run: 'false', default_radius: '25' });
    expect(r.body.list).toHaveLength(6);
    const zones = (await g.call('zone/list', { hash: u.hash })).body.list;
    expect(zones.map((z: any) => z.id)).toEqual(r.body.list);
    expect(zones[0]).toMatchObject({ radius: 25, address: 'Near 52.50, 13.40' });
    expect(g.s.store.zones.points(r.body.list[3])).toHaveLength(4);
  });
  it('KMZ: the KML inside a zip', async () => {
    const kmz = zipSync({ 'doc.kml': strToU8(KML), 'files/icon.png': new Uint8Array([1, 2, 3]) });
    const r = await up(ann.hash, { name: 'zones.kmz', type: 'application/vnd.google-earth.kmz', data: kmz });
    expect(r.body.list).toHaveLength(6);
  });
  it('202 for a polygon over 100 or a line over 1024 points; 268 over the quota; nothing created', async () => {
    const u = await userWithQuota('kml3@example.com', 2);
    expect((await up(u.hash, kmlFile(placemarks(1, () => `<Polygon><outerBoundaryIs><LinearRing><coordinates>${coords(101)}</coordinates></LinearRing></outerBoundaryIs></Polygon>`)))).body.status.code).toBe(202);
    expect((await up(u.hash, kmlFile(placemarks(1, () => `<LineString><coordinates>${coords(1025)}</coordinates></LineString>`)))).body.status.code).toBe(202);
    expect((await up(u.hash, kmlFile(placemarks(1, () => `<LineString><coordinates>${coords(1024)}</coordinates></LineString>`)))).body.list).toHaveLength(1);
    const three = kmlFile(placemarks(3, (i) => `<Point><coordinates>${i},${i}</coordinates></Point>`));
    expect((await up(u.hash, three, { dry_run: 'false' })).body.status.code).toBe(268);
    expect(count(u.id)).toBe(0);
  });
  it('242 for what is not KML: broken XML, another root, bad coordinates, a degenerate polygon', async () => {
    for (const text of [
      '<kml><Document><Placemark></Document></kml>',
      '<html><body/></html>',
      placemarks(1, () => '<Point><coordinates>abc,def</coordinates></Point>'),
      placemarks(1, () => '<Point><coordinates>10,95</coordinates></Point>'),
      placemarks(1, () => '<Polygon><outerBoundaryIs><LinearRing><coordinates>0,0 1,1 0,0</coordinates></LinearRing></outerBoundaryIs></Polygon>'),
      'just text',
    ]) {
      const r = await up(ann.hash, kmlFile(text), { dry_run: 'false' });
      expect(r.body.status?.code, text).toBe(242);
    }
  });
  it('hostile XML: entity expansion (billion laughs) and external entities are refused quickly with 242', async () => {
    const laughs = `<?xml version="1.0"?>
<!DOCTYPE kml [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
<!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;"><!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
<!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;"><!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
<!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;"><!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">]>
<kml><Document><Placemark><name>&lol9;</name><Point><coordinates>1,1</coordinates></Point></Placemark></Document></kml>`;
    const xxe = `<?xml version="1.0"?><!DOCTYPE kml [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<kml><Document><Placemark><name>&xxe;</name><Point><coordinates>1,1</coordinates></Point></Placemark></Document></kml>`;
    for (const text of [laughs, xxe]) {
      const t0 = performance.now();
      const r = await up(ann.hash, kmlFile(text));
      expect(performance.now() - t0).toBeLessThan(1000);
      expect(r.body.status.code).toBe(242);
      expect(JSON.stringify(r.body)).not.toContain('root:');
      expect(JSON.stringify(r.body)).not.toContain('lollol');
    }
  });
  it('233 without a file, 234 for a wrong type or a broken KMZ, 7 for default_radius under 20', async () => {
    expect((await up(ann.hash)).body.status.code).toBe(233);
    expect((await up(ann.hash, { name: 'photo.jpg', type: 'image/jpeg', data: KML })).body.status.code).toBe(234);
    const broken = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5]);
    expect((await up(ann.hash, { name: 'z.kmz', type: 'application/vnd.google-earth.kmz', data: broken })).body.status.code).toBe(234);
    const r = await up(ann.hash, kmlFile(KML), { default_radius: '19' });
    expect([r.body.status.code, r.body.errors[0].parameter]).toEqual([7, 'default_radius']);
  });
  it('redirect_target answers 303 with the result', async () => {
    const r = await up(ann.hash, kmlFile(KML), { redirect_target: 'https://app.example.com/kml' });
    expect(r.status).toBe(303);
    expect(JSON.parse(new URL(r.headers.get('location')!).searchParams.get('response')!).list).toHaveLength(6);
  });
});
