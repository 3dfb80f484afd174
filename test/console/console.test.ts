/**
 * The operator console end to end (issue 26, docs/console.md): Debian's Chromium against the real
 * server, trackers fed over the OsmAnd protocol through the real gateway. Flows: sign-in with a
 * refusal then success, trackers on the map and in the list, search, trackers at one spot spread
 * apart, a tracker's panel, a trip replayed in history, a task dispatched and done, 200 % zoom,
 * sign-out. Each flow saves a
 * screenshot in test-results/console/.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { SHOTS } from './browser.ts';
import { sendFixes } from './feed.ts';
import { closeAll, type ConsoleBrowser, feedTwoTrips, openBrowser, utc } from './flow.ts';

const LOGIN = 'dispatcher@example.com';
const PASSWORD = 'correct-horse-1';
const VILNIUS = { lat: 54.6872, lng: 25.2797 };

let s: TestServer | undefined;
let port: number;
let ownerHash: string;
/** Unix time of the van's last fix: later fixes must be newer (older ones are late data). */
let vanLast: number;
let b: ConsoleBrowser | undefined;
let page: Page;
const shot = (name: string, p: Page = page) => p.screenshot({ path: join(SHOTS, `${name}.png`) });

beforeAll(async () => {
  b = await openBrowser();
  page = b.page;
  s = await startTestServer({ FSM_OSMAND_PORT: '0' });
  const owner = await s.user(LOGIN, { password: PASSWORD });
  ownerHash = owner.hash;
  port = s.running.gateway.ports.osmand.http!;
  s.addTracker(owner.id, '7001', { protocol: 'osmand', label: 'Truck 1' });
  s.addTracker(owner.id, '7002', { protocol: 'osmand', label: 'Truck 2' });
  const van = s.addTracker(owner.id, '7003', { protocol: 'osmand', label: 'Van 3' });
  // The van's two trips, ending a minute ago, cut by the telemetry core.
  const trips = await feedTwoTrips(s, port, owner.hash, van, '7003', { lat: 54.6712, lng: 25.2402 });
  // Fresh fixes just before the browser looks: two trucks at the very same spot (a depot), the
  // van still parked where it stopped.
  const fresh = Math.floor(Date.now() / 1000);
  await sendFixes(port, '7001', [{ lat: 54.6801, lng: 25.2601, time: fresh - 10, speed: 0 }]);
  await sendFixes(port, '7002', [{ lat: 54.6801, lng: 25.2601, time: fresh - 5, speed: 0 }]);
  vanLast = fresh - 5;
  await sendFixes(port, '7003', [{ ...trips[trips.length - 1], time: vanLast }]);
}, 180_000);

afterAll(() => closeAll(b, s));

describe.sequential('the operator console in Chromium', () => {
  test('sign-in: a wrong password is said clearly; the right one opens the live map', async () => {
    const started = Date.now();
    await page.goto(s!.url);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    console.log(`first screen (sign-in form) shown ${Date.now() - started} ms after navigation, cold cache`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Enter your login and password.');
    await page.getByLabel('Login').fill(LOGIN);
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong login or password.' }).waitFor();
    await shot('1-signin-refused');
    await page.getByLabel('Password').fill(PASSWORD);
    const signedIn = Date.now();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('3 of 3').waitFor();
    console.log(`live map with its trackers listed ${Date.now() - signedIn} ms after signing in`);
  });

  test('every tracker is on the map and in the list with connection state, speed and last update', async () => {
    const rows = page.locator('.tracker-list .row');
    await expect.poll(() => rows.filter({ hasText: 'Online' }).count(), { timeout: 20_000 }).toBe(3);
    expect(await rows.locator('.name').allTextContents()).toEqual(['Truck 1', 'Truck 2', 'Van 3']);
    const van = await rows.filter({ hasText: 'Van 3' }).locator('.meta').textContent();
    expect(van).toMatch(/^Online0 km\/h\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    // The map frames the fleet: the van's name beside its point, the two trucks as one cluster of 2.
    await page.locator('.label-tracker', { hasText: 'Van 3' }).waitFor();
    await page.locator('.label-cluster', { hasText: /^2$/ }).waitFor();
    await page.waitForTimeout(500);
    await shot('2-live-map');
  });

  test('the list is searchable', async () => {
    await page.getByLabel('Search trackers').fill('truck');
    await page.getByText('2 of 3').waitFor();
    expect(await page.locator('.tracker-list .row .name').allTextContents()).toEqual(['Truck 1', 'Truck 2']);
    await page.getByLabel('Search trackers').fill('zzz');
    await page.getByText('No tracker matches.').waitFor();
    await page.getByLabel('Search trackers').fill('');
    await page.getByText('3 of 3').waitFor();
  });

  test('trackers at the same spot spread apart on click; choosing one opens its panel', async () => {
    const box = (await page.locator('.label-cluster', { hasText: /^2$/ }).boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    // However far the map zooms, they stay one spot: spread as buttons at once.
    const spread = page.getByRole('group', { name: '2 trackers at this spot' });
    await spread.getByRole('button', { name: 'Truck 1' }).waitFor({ timeout: 5000 });
    expect(await spread.getByRole('button').allTextContents()).toEqual(['Truck 1', 'Truck 2']);
    await page.waitForTimeout(300);
    await shot('3-spread');
    await spread.getByRole('button', { name: 'Truck 2' }).click();
    await page.getByRole('heading', { name: 'Truck 2', level: 2 }).waitFor();
    await page.getByRole('button', { name: 'Close panel' }).click();
  });

  test("a tracker's panel: last point, sensors, counters, inputs", async () => {
    await page.locator('.tracker-list .row', { hasText: 'Van 3' }).click();
    const panel = page.locator('aside.panel');
    await panel.getByRole('heading', { name: 'Van 3', level: 2 }).waitFor();
    await panel.locator('#p-counters').waitFor();
    await expect.poll(async () => (await panel.locator('.facts').first().textContent()) ?? '', { timeout: 10_000 }).toContain('Satellites');
    const facts = await panel.locator('.facts').first().textContent();
    expect(facts).toMatch(/Position54\.\d{5}, 25\.\d{5}/);
    expect(facts).toContain('Speed0 km/h');
    expect(facts).toContain('Altitude120 m');
    expect(facts).toContain('Device7003');
    await expect.poll(() => panel.locator('#p-counters + .facts').textContent()).toMatch(/^Odometer\d/);
    await shot('4-tracker-panel');
  });

  test('history: the trips and the stop of a period, replayed with the time slider', async () => {
    await page.getByRole('button', { name: 'Show history' }).click();
    await page.waitForURL(/\/history\?tracker=\d+$/);
    await page.getByRole('heading', { name: 'History' }).waitFor();
    // The period: the last two hours (the default, today so far, may not hold them just after midnight).
    await page.getByLabel('From').fill(utc(Date.now() / 1000 - 7200).slice(0, 16).replace(' ', 'T'));
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.getByText('Trip 2').waitFor();
    const items = await page.locator('.trips li strong').allTextContents();
    expect(items).toEqual(['Trip 1', 'Trip 2', 'Stop']);
    const slider = page.getByLabel('Replay position');
    const time = page.locator('.replay-time');
    const first = await time.textContent();
    expect(first).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}, \d+ km\/h$/);
    // Play at ×1200 for a moment: the replay moves on.
    await page.getByLabel('Replay speed').selectOption('1200');
    await page.getByRole('button', { name: 'Play' }).click();
    await expect.poll(() => time.textContent(), { timeout: 5000 }).not.toBe(first);
    await page.getByRole('button', { name: 'Pause' }).click();
    // The keyboard moves the slider too; the trip's list entry jumps to its start.
    await slider.focus();
    await page.keyboard.press('End');
    const end = await time.textContent();
    await page.getByRole('button', { name: /^Trip 2/ }).click();
    expect(await time.textContent()).not.toBe(end);
    await page.waitForTimeout(500);
    await shot('5-history-replay');
  });

  test('dispatch: a task placed on the map and assigned turns done as the van drives through its zone', async () => {
    await page.getByRole('link', { name: 'Dispatch' }).click();
    await page.getByRole('heading', { name: 'Tasks', level: 2 }).waitFor();
    // The map is ready once it draws the trackers.
    await page.locator('.dispatch :is(.label-tracker, .label-cluster)').first().waitFor();
    await page.getByRole('button', { name: 'New task' }).click();
    await page.getByLabel('Label').fill('Deliver parcels');
    await page.getByLabel('Tracker', { exact: true }).selectOption({ label: 'Van 3' });
    // The place picked on the map fills the coordinates; then set exactly for the drive below.
    await page.getByRole('button', { name: 'Pick the place on the map' }).click();
    const map = (await page.locator('.dispatch .map canvas').boundingBox())!;
    await page.mouse.click(map.x + map.width / 2, map.y + map.height / 2);
    await expect.poll(() => page.getByLabel('Latitude').inputValue()).toMatch(/^-?\d+\.\d{6}$/);
    // 590 m east of where the van parked (a farther jump would be filtered out as a GNSS glitch).
    await page.getByLabel('Latitude').fill('54.6952');
    await page.getByLabel('Longitude').fill('25.457');
    await page.getByRole('button', { name: 'Create task' }).click();
    await page.getByRole('status').filter({ hasText: 'Task "Deliver parcels" created.' }).waitFor();
    const row = page.locator('table.tasks tbody tr', { hasText: 'Deliver parcels' });
    expect(await row.locator('.badge').textContent()).toBe('Assigned');
    expect(await row.getByLabel('Assign Deliver parcels to').inputValue()).not.toBe('');
    await shot('7-dispatch-assigned');
    // The van drives into the task's zone and out again: done (the task has no minimum stay).
    // In 10 s after its last fix at the earliest, and out 10 s later (a plausible speed, no future time).
    const wait = vanLast + 22 - Date.now() / 1000;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait * 1000));
    const now = Math.floor(Date.now() / 1000);
    await sendFixes(port, '7003', [
      { lat: 54.6953, lng: 25.4571, time: now - 12, speed: 5 },
      { lat: 54.6952, lng: 25.461, time: now - 2, speed: 40 },
    ]);
    // The board polls task/list: the telemetry core's outcome shows without a reload.
    await expect.poll(() => row.locator('.badge').textContent(), { timeout: 30_000 }).toBe('Done');
    await page.waitForTimeout(500);
    await shot('8-dispatch-done');
  });

  test('live: the console subscribes over the WebSocket as the Navixy docs say and moves trackers on state_batch events', async () => {
    // The page's socket answered here exactly as the documentation shows (the next test uses the server's own).
    const { list } = (await s!.call('tracker/list', { hash: ownerHash })).body as { list: { label: string; source: { id: number } }[] };
    const truck1 = list.find((x) => x.label === 'Truck 1')!.source.id;
    const requests: unknown[] = [];
    const live = await b!.context.newPage();
    await live.routeWebSocket(/\/v2\/event\/subscription\?/, (ws) => {
      ws.send('3f3e1a5c-0b6c-4a52-9a53-2b0c2b6a8f11|30000|X|'); // Atmosphere's first frame
      ws.onMessage((m) => {
        const msg = JSON.parse(String(m));
        requests.push(msg);
        ws.send(JSON.stringify({ type: 'response', action: 'subscription/subscribe', events: ['state_batch'], data: { state_batch: { success: true, value: { [truck1]: 'normal' } } } }));
        ws.send('X'); // a heartbeat
        const state = { source_id: truck1, gps: { updated: '2030-01-01 10:00:00', signal_level: 100, location: { lat: 54.69, lng: 25.28 }, heading: 45, speed: 57, alt: 100 }, connection_status: 'active', movement_status: 'moving', movement_status_update: '2030-01-01 09:59:00', ignition: true, ignition_update: '2030-01-01 09:50:00', last_update: '2030-01-01 10:00:00' };
        ws.send(JSON.stringify({ type: 'event', event: 'state_batch', user_time: '2030-01-01 10:00:01', data: [state] }));
      });
    });
    await live.goto(s!.url);
    await live.getByText('3 of 3').waitFor();
    await live.getByRole('status').filter({ hasText: /^Live$/ }).waitFor();
    const row = live.locator('.tracker-list .row', { hasText: 'Truck 1' });
    await expect.poll(() => row.locator('.meta').textContent()).toBe('Online57 km/h2030-01-01 10:00:00');
    expect(requests).toEqual([{ action: 'subscribe', hash: expect.any(String), requests: [{ type: 'state_batch', target: { type: 'all' }, rate_limit: '1s', format: 'compact' }] }]);
    // The page's own session (signed in on this browser context), not the test's.
    expect((requests[0] as { hash: string }).hash).toMatch(/^[0-9a-f]{32}$/);
    await live.close();
  });

  test("live against the server's own socket: a fix the gateway takes moves the tracker's row without a reload", async () => {
    const live = await b!.context.newPage();
    const frames: string[] = [];
    live.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
    await live.goto(s!.url);
    await live.getByText('3 of 3').waitFor();
    await live.getByRole('status').filter({ hasText: /^Live$/ }).waitFor();
    const row = live.locator('.tracker-list .row', { hasText: 'Van 3' });
    vanLast = Math.max(vanLast + 1, Math.floor(Date.now() / 1000));
    await sendFixes(port, '7003', [{ lat: 54.7001, lng: 25.3001, time: vanLast, speed: 63 }]);
    await expect.poll(() => row.locator('.meta').textContent(), { timeout: 15_000 }).toContain('63 km/h');
    // It came as a state_batch event of the real socket, not from a poll.
    expect(frames.some((f) => f.includes('"state_batch"') && f.includes('"speed":63'))).toBe(true);
    await live.close();
  });

  test('readable at 200 % zoom: one column, no sideways scrolling', async () => {
    const zoomed = await b!.context.newPage();
    await zoomed.setViewportSize({ width: 640, height: 400 });
    await zoomed.goto(s!.url);
    await zoomed.getByText('3 of 3').waitFor();
    expect(await zoomed.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await zoomed.locator('.label-cluster', { hasText: /^2$/ }).waitFor();
    await zoomed.waitForTimeout(500);
    await shot('6-zoom-200', zoomed);
    await zoomed.close();
  });

  test('sign-out ends the session and shows the sign-in screen', async () => {
    const hash = await page.evaluate(() => JSON.parse(localStorage.getItem('fsm.console.session')!).hash as string);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('fsm.console.session'))).toBeNull();
    expect((await s!.call('user/get_info', { hash })).body.status.code).toBe(4);
    expect(b!.pageErrors).toEqual([]);
  });
});
