/**
 * Steps the console's end-to-end tests share: waiting for the server, signing in as a user would,
 * and a tracker's two trips fed over OsmAnd until the telemetry core has cut them.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildConsole } from '../../web/console/build.ts';
import type { TestServer } from '../helpers/server.ts';
import { launchChromium } from './browser.ts';
import { sendFixes, twoTrips } from './feed.ts';

export interface ConsoleBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Uncaught errors in the page: the tests expect none. */
  pageErrors: string[];
}

/**
 * Chromium (first, so a missing browser fails at once), the console built when its sources
 * changed, and one page of `viewport` (default 1280 x 800) collecting uncaught page errors.
 */
export async function openBrowser(opts: { viewport?: { width: number; height: number }; acceptDownloads?: boolean } = {}): Promise<ConsoleBrowser> {
  const browser = await launchChromium();
  try {
    await buildConsole({ ifNeeded: true, quiet: true });
    const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1280, height: 800 }, acceptDownloads: opts.acceptDownloads ?? false });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    return { browser, context, page, pageErrors };
  } catch (e) {
    await browser.close().catch(() => {});
    throw e;
  }
}

/**
 * A screen at 200 % zoom: a 640 x 400 window in the same browser context (so signed in) opens
 * `url`; once `ready` holds, answers whether the document scrolls sideways (it must not) and
 * leaves a screenshot at `shotPath`.
 */
export async function scrollsSideways(b: ConsoleBrowser, url: string, ready: (p: Page) => Promise<unknown>, shotPath: string): Promise<boolean> {
  const zoomed = await b.context.newPage();
  try {
    await zoomed.setViewportSize({ width: 640, height: 400 });
    await zoomed.goto(url);
    await ready(zoomed);
    await zoomed.screenshot({ path: shotPath });
    return await zoomed.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
  } finally {
    await zoomed.close();
  }
}

/** The browser and the server closed, whichever of them was started (also after a failed start). */
export async function closeAll(b: ConsoleBrowser | undefined, s: TestServer | undefined): Promise<void> {
  await b?.browser.close().catch(() => {});
  await s?.close();
}

/** Polls `check` every 250 ms until it holds (true) or `ms` pass (false). */
export async function until(check: () => Promise<boolean>, ms = 60_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

/** The test user's time zone is UTC: API times are UTC wall-clock times. */
export const utc = (unix: number) => new Date(unix * 1000).toISOString().slice(0, 19).replace('T', ' ');

/** Opens the console and signs in through the form; resolves when the live map's list is shown. */
export async function signIn(page: Page, url: string, login: string, password: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Login').fill(login);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Trackers', level: 2 }).waitFor();
}

/**
 * Two trips east with a stop between them (feed.ts), ending a minute ago, sent by `deviceId` over
 * OsmAnd; resolves with the fixes sent once track/list shows both trips. Throws when the telemetry
 * core has not cut them within a minute.
 */
export async function feedTwoTrips(s: TestServer, osmandPort: number, hash: string, trackerId: number, deviceId: string, start: { lat: number; lng: number }) {
  const now = Math.floor(Date.now() / 1000);
  const trips = twoTrips(start, now - 3 * 3600);
  const shift = now - 60 - trips[trips.length - 1].time;
  const fixes = trips.map((f) => ({ ...f, time: f.time + shift }));
  await sendFixes(osmandPort, deviceId, fixes);
  const ok = await until(async () => {
    const r = await s.call('track/list', { hash, tracker_id: trackerId, from: utc(now - 86_400), to: utc(now + 60) });
    return r.body.success && r.body.list.filter((x: { type: string }) => x.type === 'regular').length === 2;
  });
  if (!ok) throw new Error(`the telemetry core did not cut the two trips of ${deviceId}`);
  return fixes;
}
