/**
 * The console's places and zones screen end to end (issue 26, docs/console.md): Debian's Chromium
 * against the real server. A polygon and a circle drawn by clicking the map (a point dragged), their
 * points as zone/list and zone/point/list answer them, a zone edited and one deleted, a KML file and
 * a CSV of places imported (its row errors shown), the screen at 200 % zoom. Screenshots in
 * test-results/console/zones-*.png.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { SHOTS } from './browser.ts';
import { closeAll, openBrowser, signIn, type ConsoleBrowser } from './flow.ts';

const LOGIN = 'planner@example.com';
const PASSWORD = 'correct-horse-2';
/** The seeded place: the screen frames it at zoom 15, so pixels on the map convert to coordinates. */
const DEPOT = { lat: 54.6872, lng: 25.2797 };
const ZOOM = 15;

let s: TestServer | undefined;
let hash: string;
let b: ConsoleBrowser | undefined;
let page: Page;
const shot = (name: string, p: Page = page) => p.screenshot({ path: join(SHOTS, `zones-${name}.png`) });

/** Web Mercator with MapLibre's 512-pixel tiles: the coordinates `dx`, `dy` pixels from the map's centre. */
function offset(dx: number, dy: number) {
  const world = 512 * 2 ** ZOOM;
  const y0 = ((1 - Math.log(Math.tan(Math.PI / 4 + (DEPOT.lat * Math.PI) / 360)) / Math.PI) / 2) * world;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * (y0 + dy)) / world))) * 180) / Math.PI;
  return { lat, lng: DEPOT.lng + (dx / world) * 360 };
}

/** The map's centre on the page, and a click or drag so many pixels from it. */
async function mapCentre() {
  const box = (await page.locator('.zones .map canvas').boundingBox())!;
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

const near = (p: { lat: number; lng: number }, q: { lat: number; lng: number }) => Math.abs(p.lat - q.lat) < 2e-5 && Math.abs(p.lng - q.lng) < 2e-5;

beforeAll(async () => {
  b = await openBrowser({ viewport: { width: 1280, height: 900 } });
  page = b.page;
  s = await startTestServer();
  hash = (await s.user(LOGIN, { password: PASSWORD })).hash;
  const r = await s.call('place/create', { hash, place: { label: 'Depot', location: { ...DEPOT, radius: 60, address: 'Depot street 1' } } });
  if (!r.body.success) throw new Error(JSON.stringify(r.body));
}, 180_000);

afterAll(() => closeAll(b, s));

describe.sequential('places and zones in Chromium', () => {
  test('the screen lists the user\'s places and frames them on the map', async () => {
    await signIn(page, s!.url, LOGIN, PASSWORD);
    await page.getByRole('link', { name: 'Places and zones' }).click();
    await page.getByRole('heading', { name: 'Places and zones', level: 2 }).waitFor();
    await page.getByText('Zones: 0 · places: 1').waitFor();
    expect(await page.getByRole('list', { name: 'Places' }).textContent()).toBe('DepotDepot street 1 · 60 m');
    expect(await page.getByText('No zones.').isVisible()).toBe(true);
    await page.locator('.zones .label-task', { hasText: 'Depot' }).waitFor();
  });

  test('a polygon drawn by clicks (one point dragged) is saved with the drawn points', async () => {
    await page.getByRole('button', { name: 'New polygon' }).click();
    await page.getByRole('heading', { name: 'New Polygon' }).waitFor();
    await page.getByLabel('Name').fill('Yard');
    const c = await mapCentre();
    const corners: [number, number][] = [[-150, -250], [150, -250], [150, -90], [-150, -60]];
    for (const [dx, dy] of corners) await page.mouse.click(c.x + dx, c.y + dy);
    await expect.poll(() => page.locator('.points li').count()).toBe(4);
    // The last point dragged 30 px up: the map does not pan, the point moves.
    await page.mouse.move(c.x - 150, c.y - 60);
    await page.mouse.down();
    await page.mouse.move(c.x - 150, c.y - 75, { steps: 4 });
    await page.mouse.move(c.x - 150, c.y - 90, { steps: 4 });
    await page.mouse.up();
    corners[3] = [-150, -90];
    const shown = await page.locator('.points li span').allTextContents();
    expect(shown).toHaveLength(4);
    shown.forEach((text, i) => {
      const [lat, lng] = text.split(', ').map(Number);
      expect(near({ lat, lng }, offset(...corners[i])), `point ${i + 1}: ${text}`).toBe(true);
    });
    await shot('1-polygon-drawn');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: '"Yard" created.' }).waitFor();
    await page.getByRole('list', { name: 'Zones' }).getByText('Polygon · Points: 4').waitFor();

    const list = (await s!.call('zone/list', { hash })).body.list;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ type: 'polygon', label: 'Yard', color: '27A9E3', tags: [] });
    const pts = (await s!.call('zone/point/list', { hash, zone_id: list[0].id })).body.list;
    // Exactly the points the form showed (6 decimals), which are where the clicks were.
    expect(pts.map((p: { lat: number; lng: number }) => `${p.lat.toFixed(6)}, ${p.lng.toFixed(6)}`)).toEqual(shown);
  });

  test('a circle drawn by its centre and edge is saved with that centre and radius', async () => {
    await page.getByRole('button', { name: 'New circle' }).click();
    await page.getByLabel('Name').fill('Gate');
    await page.getByLabel('Colour').fill('#cf222e');
    const c = await mapCentre();
    await page.mouse.click(c.x + 60, c.y + 180);
    await page.mouse.click(c.x + 60 + 72, c.y + 180); // 72 px east: about 100 m at zoom 15 here
    const centre = offset(60, 180);
    const radius = Number(await page.getByLabel('Radius, m').inputValue());
    const metresPerPixel = (40_075_016.686 * Math.cos((centre.lat * Math.PI) / 180)) / (512 * 2 ** ZOOM);
    expect(Math.abs(radius - 72 * metresPerPixel)).toBeLessThan(2);
    expect(near({ lat: Number(await page.getByLabel('Latitude').inputValue()), lng: Number(await page.getByLabel('Longitude').inputValue()) }, centre)).toBe(true);
    await shot('2-circle-drawn');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: '"Gate" created.' }).waitFor();
    await page.getByRole('list', { name: 'Zones' }).getByText(`Circle · ${radius} m`).waitFor();
    const gate = (await s!.call('zone/list', { hash })).body.list.find((z: { label: string }) => z.label === 'Gate');
    expect(gate).toMatchObject({ type: 'circle', color: 'CF222E', radius });
    expect(near(gate.center, centre)).toBe(true);
    await page.locator('.zones .label-task', { hasText: 'Gate' }).waitFor();
    await page.waitForTimeout(300);
    await shot('3-zones-listed');
  });

  test('a zone chosen in the list is edited: new name and radius', async () => {
    await page.getByRole('list', { name: 'Zones' }).getByRole('button', { name: /^Gate/ }).click();
    await page.getByRole('heading', { name: 'Circle: Gate' }).waitFor();
    await page.getByLabel('Name').fill('Main gate');
    await page.getByLabel('Radius, m').fill('250');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: '"Main gate" saved.' }).waitFor();
    await page.getByRole('list', { name: 'Zones' }).getByText('Circle · 250 m').waitFor();
    const list = (await s!.call('zone/list', { hash })).body.list;
    expect(list.map((z: { label: string; radius?: number }) => [z.label, z.radius])).toEqual([
      ['Yard', undefined],
      ['Main gate', 250],
    ]);
  });

  test('a zone is deleted after a confirmation', async () => {
    await page.getByRole('list', { name: 'Zones' }).getByRole('button', { name: /^Yard/ }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Delete "Yard"?').waitFor();
    await shot('4-delete-confirm');
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByRole('status').filter({ hasText: '"Yard" deleted.' }).waitFor();
    expect(await page.getByRole('list', { name: 'Zones' }).getByRole('button').allTextContents()).toEqual(['Main gateCircle · 250 m']);
    expect((await s!.call('zone/list', { hash })).body.list.map((z: { label: string }) => z.label)).toEqual(['Main gate']);
  });

  test('a KML file becomes zones; a CSV of places is imported and its bad row is named', async () => {
    await page.getByRole('button', { name: 'Import a file' }).click();
    const kml = `<?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>Plan</name>
<Placemark><name>Field</name><Polygon><outerBoundaryIs><LinearRing><coordinates>25.270,54.690 25.275,54.690 25.275,54.692 25.270,54.692 25.270,54.690</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark>
<Placemark><name>Pump</name><Point><coordinates>25.285,54.685</coordinates></Point></Placemark></Document></kml>`;
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'plan.kml', mimeType: 'application/vnd.google-earth.kml+xml', buffer: Buffer.from(kml) });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Zones created: 2.' }).waitFor();
    await page.getByRole('list', { name: 'Zones' }).getByText('Plan / Field').waitFor();
    expect(await page.getByRole('list', { name: 'Zones' }).getByRole('button', { name: /^Plan \/ Pump/ }).textContent()).toBe('Plan / PumpCircle · 150 m');

    const csv = 'label;address;lat;lng;radius;external_id;description\nShop;Main street 5;54.689;25.281;80;S1;\nNowhere;;95;25.28;;;\n';
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'places.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    // With "import nothing", the bad row refuses the whole file: said as an alert with the row.
    await page.getByLabel('Rows with errors').selectOption('fail');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const alert = page.getByRole('alert');
    await alert.locator('table').waitFor();
    expect(await alert.locator('.outcome').textContent()).toBe('The server answered with an error: Invalid data format: 1 bad row(s), first at line 3; nothing was imported (code 234).');
    expect(await alert.locator('tbody tr td').allTextContents()).toEqual(['3', 'lat', expect.any(String)]);
    await shot('5-import-refused');
    await page.getByLabel('Rows with errors').selectOption('ignore');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const done = page.getByRole('status').filter({ hasText: 'Rows read: 2.' });
    await done.waitFor();
    expect(await done.locator('.outcome').textContent()).toBe('Rows read: 2. Places created: 1, updated: 0, left out as duplicates: 0; rows with errors: 1.');
    expect(await done.locator('tbody tr td').nth(0).textContent()).toBe('3');
    await page.getByRole('list', { name: 'Places' }).getByText('Shop').waitFor();
    const places = (await s!.call('place/list', { hash })).body.list;
    expect(places.map((p: { label: string; external_id: string | null }) => [p.label, p.external_id])).toEqual([
      ['Depot', null],
      ['Shop', 'S1'],
    ]);
    await page.waitForTimeout(300);
    await shot('6-imported');
  });

  test('a sausage drawn by three clicks is as wide as its radius on the map and saved with its points', async () => {
    const consoleErrors: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && consoleErrors.push(m.text())));
    await page.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'New sausage' }).click();
    await page.getByLabel('Name').fill('Lane');
    await page.getByLabel('Radius, m').fill('40');
    const c = await mapCentre();
    for (const [dx, dy] of [[-200, 100], [-60, 60], [100, 120]]) await page.mouse.click(c.x + dx, c.y + dy);
    await expect.poll(() => page.locator('.points li').count()).toBe(3);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: '"Lane" created.' }).waitFor();
    const lane = (await s!.call('zone/list', { hash })).body.list.find((z: { label: string }) => z.label === 'Lane');
    expect(lane).toMatchObject({ type: 'sausage', radius: 40 });
    expect((await s!.call('zone/point/list', { hash, zone_id: lane.id })).body.list).toHaveLength(3);
    await page.waitForTimeout(500);
    await shot('7-sausage');
    expect(consoleErrors).toEqual([]);
  });

  test('readable at 200 % zoom: one column, no sideways scrolling', async () => {
    const zoomed = await page.context().newPage();
    await zoomed.setViewportSize({ width: 640, height: 450 });
    await zoomed.goto(`${s!.url}/zones`);
    await zoomed.getByText('Zones: 4 · places: 2').waitFor();
    expect(await zoomed.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await zoomed.getByRole('button', { name: 'New sausage' }).click();
    await zoomed.waitForTimeout(500);
    expect(await zoomed.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await shot('8-zoom-200', zoomed);
    await zoomed.close();
    expect(b!.pageErrors).toEqual([]);
  });
});
