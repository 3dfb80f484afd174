/**
 * The operator console's first screen, from a cold cache on loopback (issue 26): the real server
 * with 20 trackers fed over OsmAnd, Debian's Chromium (a fresh browser context per run, so nothing
 * is cached). Prints, as the median and worst of the runs: the sign-in form's time from navigation
 * start and the bytes transferred for it, then the time from pressing Sign in to the live map drawing
 * its trackers. Also prints the build's sizes.
 *   node --import tsx bench/console.ts [runs=7]
 * The 5,000-tracker figures (frames while panning, memory over 10 minutes) are not measured
 * here yet (docs/console.md, Not done yet).
 */
import { buildConsole } from '../web/console/build.ts';
import { launchChromium } from '../test/console/browser.ts';
import { sendFixes } from '../test/console/feed.ts';
import { startTestServer } from '../test/helpers/server.ts';

const runs = Number(process.argv[2] ?? 7);
await buildConsole();
const s = await startTestServer({ FSM_OSMAND_PORT: '0' });
const browser = await launchChromium().catch(async (e) => {
  await s.close();
  throw e;
});
try {
  const owner = await s.user('bench@example.com', { password: 'bench-password-1' });
  const now = Math.floor(Date.now() / 1000);
  for (let i = 0; i < 20; i++) {
    s.addTracker(owner.id, `${9000 + i}`, { protocol: 'osmand', label: `Vehicle ${i + 1}` });
    await sendFixes(s.running.gateway.ports.osmand.http!, `${9000 + i}`, [{ lat: 54.6 + (i % 5) * 0.02, lng: 25.2 + Math.floor(i / 5) * 0.03, time: now - 30, speed: 20 }]);
  }
  const first: number[] = [];
  const bytes: number[] = [];
  const map: number[] = [];
  const list: number[] = [];
  for (let r = 0; r < runs; r++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(s.url, { waitUntil: 'commit' });
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // performance.now() counts from the navigation's start.
    first.push(await page.evaluate(() => performance.now()));
    bytes.push(await page.evaluate(() => (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).reduce((n, e) => n + e.transferSize, (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).transferSize)));
    await page.getByLabel('Login').fill('bench@example.com');
    await page.getByLabel('Password').fill('bench-password-1');
    const pressed = await page.evaluate(() => performance.now());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('20 of 20').waitFor();
    list.push((await page.evaluate(() => performance.now())) - pressed);
    await page.locator('.label-tracker, .label-cluster').first().waitFor();
    map.push((await page.evaluate(() => performance.now())) - pressed);
    if (r === 0) console.log('marks after pressing Sign in:', (await page.evaluate(() => performance.getEntriesByType('mark').map((m) => [m.name, Math.round(m.startTime)]))).map(([n, t]) => `${n} +${Number(t) - pressed | 0} ms`).join(', '));
    await context.close();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const ms = (xs: number[]) => `median ${median(xs).toFixed(0)} ms, worst ${Math.max(...xs).toFixed(0)} ms`;
  console.log(`runs: ${runs}, cold cache each`);
  console.log(`first screen (sign-in form) after navigation start: ${ms(first)}; transferred ${(median(bytes) / 1024).toFixed(0)} KiB`);
  console.log(`tracker list shown after pressing Sign in: ${ms(list)}`);
  console.log(`live map with 20 trackers drawn after pressing Sign in: ${ms(map)}`);
} finally {
  await browser.close();
  await s.close();
}
