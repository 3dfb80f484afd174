/**
 * The console's check-ins screen end to end (docs/console.md): Debian's Chromium against the real
 * server. Check-ins made as the field app makes them (createCheckin, photos uploaded through
 * checkin/file/create), then: the period's list newest first with comments and photos (loaded
 * through their download_url with the session), the employee filter (one employee, none), a wider
 * period, one opened with everything it holds and its dot labelled on the map, "Show more" paging.
 * Screenshots in test-results/console/checkins-*.png.
 */
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { createCheckin } from '../../src/checkins/checkins.ts';
import type { Geocoder } from '../../src/geocoder/types.ts';
import { upload } from '../files/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { SHOTS } from './browser.ts';
import { closeAll, type ConsoleBrowser, openBrowser, signIn, utc, scrollsSideways } from './flow.ts';

const LOGIN = 'field.lead@example.com';
const PASSWORD = 'correct-horse-4';
const MIN = 60_000;

let s: TestServer | undefined;
let hash: string;
let b: ConsoleBrowser | undefined;
let page: Page;
const shot = (name: string) => page.screenshot({ path: join(SHOTS, `checkins-${name}.png`) });
const local = (ms: number) => utc(ms / 1000).slice(0, 16).replace(' ', 'T');
/** The check-ins made, by name: their times as the API shows them. */
const times: Record<string, string> = {};

/** A photo-like JPEG: sky, ground and a coloured block, `w` x `h`. */
function photo(colour: string, w = 480, h = 320): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h * 0.6}" fill="#9ecbf0"/><rect y="${h * 0.6}" width="${w}" height="${h * 0.4}" fill="#7a9a55"/><rect x="${w * 0.3}" y="${h * 0.3}" width="${w * 0.4}" height="${h * 0.45}" fill="${colour}"/></svg>`;
  return sharp(Buffer.from(svg)).jpeg().toBuffer();
}

async function photoFile(name: string, colour: string): Promise<number> {
  const r = await s!.call('checkin/file/create', { hash, size: 200_000, filename: name, type: 'image' });
  const u = await upload(r.body.url, r.body.fields, await photo(colour), { filename: name, type: 'image/jpeg' });
  if (u.body.value?.state !== 'uploaded') throw new Error(JSON.stringify(u.body));
  return r.body.file_id;
}

beforeAll(async () => {
  b = await openBrowser();
  page = b.page;
  s = await startTestServer();
  const owner = await s.user(LOGIN, { password: PASSWORD });
  hash = owner.hash;
  const t1 = s.addTracker(owner.id, '9001', { label: 'Phone 1' });
  const t2 = s.addTracker(owner.id, '9002', { label: 'Phone 2' });
  const t3 = s.addTracker(owner.id, '9003', { label: 'Pool phone' });
  for (const [first, last, tracker] of [['Zoe', 'Adams', t1], ['Max', 'Berg', t2]] as const) {
    const r = await s.call('employee/create', { hash, employee: { first_name: first, last_name: last, tracker_id: tracker } });
    if (!r.body.success) throw new Error(JSON.stringify(r.body));
  }
  const geocoder: Geocoder = { reverse: async (lat, lng) => ({ lat, lng, address: lat > 54.69 ? 'Gedimino pr. 9, Vilnius' : 'Savanorių pr. 28, Vilnius' }), search: async () => [] };
  const deps = { store: s.store, geocoder, now: Date.now };
  const now = Date.now();
  const make = async (name: string, trackerId: number, ago: number, lat: number, lng: number, comment: string | undefined, fileIds: number[]) => {
    const id = await createCheckin(deps, { trackerId, time: now - ago, location: { lat, lng, precision: 8 }, comment, fileIds });
    times[name] = (await s!.call('checkin/read', { hash, checkin_id: id })).body.value.marker_time;
  };
  await make('old', t1, 10 * 1440 * MIN, 54.6801, 25.2601, 'Last week’s visit', []);
  await make('gate', t1, 120 * MIN, 54.6951, 25.2791, 'Gate is open, the yard is empty', [await photoFile('gate.jpg', '#6e4b2a'), await photoFile('yard.jpg', '#c0392b')]);
  await make('reception', t2, 60 * MIN, 54.6802, 25.2602, 'Delivered to reception', [await photoFile('parcel.jpg', '#d4a017')]);
  await make('pool', t3, 30 * MIN, 54.6850, 25.2700, undefined, []);
}, 180_000);

afterAll(() => closeAll(b, s));

const items = () => page.getByRole('list', { name: 'Check-ins' }).getByRole('listitem');
/** Every shown image has loaded (the session went with its download_url). */
const imagesLoaded = (scope: string) => page.locator(`${scope} img`).evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0));

describe.sequential('check-ins in Chromium', () => {
  test('the last seven days, newest first, with comments and photos', async () => {
    await signIn(page, s!.url, LOGIN, PASSWORD);
    await page.getByRole('link', { name: 'Check-ins' }).click();
    await page.getByRole('heading', { name: 'Check-ins', level: 2 }).waitFor();
    await page.getByText('3 of 3').waitFor();
    expect(await items().locator('button.link').allTextContents()).toEqual([`Pool phone, ${times.pool}`, `Max Berg, ${times.reception}`, `Zoe Adams, ${times.gate}`]);
    expect(await items().nth(1).locator('.meta').textContent()).toBe('Savanorių pr. 28, Vilnius');
    expect(await items().nth(1).locator('.comment').textContent()).toBe('Delivered to reception');
    expect(await items().nth(0).locator('.comment').count()).toBe(0);
    expect(await items().nth(2).getByRole('img').evaluateAll((imgs) => imgs.map((i) => i.getAttribute('alt')))).toEqual(['gate.jpg', 'yard.jpg']);
    await expect.poll(() => imagesLoaded('.checkin-list')).toEqual([true, true, true]);
  });

  test('filtered by employee, and by a wider period', async () => {
    const who = page.getByLabel('Employee');
    expect(await who.locator('option').allTextContents()).toEqual(['Every employee', 'Without an employee', 'Zoe Adams', 'Max Berg']);
    await who.selectOption({ label: 'Zoe Adams' });
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('1 of 1').waitFor();
    expect(await items().locator('button.link').allTextContents()).toEqual([`Zoe Adams, ${times.gate}`]);
    await page.getByLabel('From').fill(local(Date.now() - 11 * 1440 * MIN));
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('2 of 2').waitFor();
    expect(await items().locator('button.link').allTextContents()).toEqual([`Zoe Adams, ${times.gate}`, `Zoe Adams, ${times.old}`]);
    await who.selectOption({ label: 'Without an employee' });
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('1 of 1').waitFor();
    expect(await items().locator('button.link').allTextContents()).toEqual([`Pool phone, ${times.pool}`]);
    await who.selectOption({ label: 'Every employee' });
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('4 of 4').waitFor();
  });

  test('a check-in opens with all it holds, and its dot is labelled on the map', async () => {
    await items().getByRole('button', { name: `Zoe Adams, ${times.gate}` }).click();
    const panel = page.getByRole('complementary', { name: `Zoe Adams, ${times.gate}` });
    await panel.waitFor();
    const facts = await panel.locator('dl.facts').evaluate((dl) => [...dl.children].map((c) => c.textContent));
    expect(facts).toEqual(['Time', times.gate, 'Employee', 'Zoe Adams', 'Tracker', 'Zoe Adams', 'Address', 'Gedimino pr. 9, Vilnius', 'Position', '54.695100, 25.279100 (within 8 m)', 'Comment', 'Gate is open, the yard is empty']);
    expect(await panel.getByRole('heading', { name: 'Photos (2)' }).isVisible()).toBe(true);
    await expect.poll(() => imagesLoaded('.panel .photos')).toEqual([true, true]);
    // The photo opens in full through its download_url with the session.
    const href = await panel.getByRole('link').first().getAttribute('href');
    expect(href).toMatch(/\/v2\/file\/download\/\d+\?hash=[0-9a-f]{32}$/);
    const res = await fetch(new URL(href!, s!.url));
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'image/jpeg']);
    // The map centres on it: its label (who, time) is drawn.
    await page.locator('.label-task', { hasText: `Zoe Adams, ${times.gate.slice(11, 16)}` }).waitFor();
    expect(await items().filter({ has: page.getByRole('button', { name: `Zoe Adams, ${times.gate}` }) }).getAttribute('class')).toBe('selected');
    await page.waitForTimeout(800);
    await shot('1-opened');
    await panel.getByRole('button', { name: 'Close panel' }).click();
    await panel.waitFor({ state: 'detached' });
  });

  test('readable at 200 % zoom: one column, no sideways scrolling', async () => {
    const sideways = await scrollsSideways(b!, `${s!.url}/checkins`, async (p) => {
      await p.getByText('3 of 3').waitFor();
      await p.getByRole('button', { name: `Zoe Adams, ${times.gate}` }).click();
      await p.getByRole('complementary').waitFor();
    }, join(SHOTS, 'checkins-2-zoom-200.png'));
    expect(sideways).toBe(false);
  });

  test('pages of 50: "Show more" reads the next page', async () => {
    const t = (await s!.call('tracker/list', { hash })).body.list[0].id;
    const deps = { store: s!.store, geocoder: { reverse: async () => null, search: async () => [] } as Geocoder, now: Date.now };
    for (let i = 0; i < 50; i++) await createCheckin(deps, { trackerId: t, time: Date.now() - (200 + i) * MIN, location: { lat: 54.68, lng: 25.26 }, fileIds: [] });
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('50 of 54').waitFor();
    await page.getByRole('button', { name: 'Show more' }).click();
    await page.getByText('54 of 54').waitFor();
    expect(await page.getByRole('button', { name: 'Show more' }).count()).toBe(0);
    expect(await items().count()).toBe(54);
    expect(b!.pageErrors).toEqual([]);
  });
});
