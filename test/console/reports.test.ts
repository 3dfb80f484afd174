/**
 * The console's reports screen end to end (docs/console.md): Debian's Chromium against the real
 * server, two trackers' trips fed over OsmAnd. A trips report asked for in the form, its progress
 * watched in the list until it is ready, its tables shown in the page exactly as
 * report/tracker/retrieve answers them, downloaded as xlsx, pdf and csv, then deleted; refusals
 * (no tracker, a period over the tariff's span) said in words. Screenshots in test-results/console/.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { SHOTS } from './browser.ts';
import { closeAll, type ConsoleBrowser, feedTwoTrips, openBrowser, signIn, utc, scrollsSideways } from './flow.ts';

const LOGIN = 'analyst@example.com';
const PASSWORD = 'correct-horse-3';

let s: TestServer | undefined;
let hash: string;
let b: ConsoleBrowser | undefined;
let page: Page;
const shot = (name: string) => page.screenshot({ path: join(SHOTS, `reports-${name}.png`) });
/** The input value of a datetime-local field for a unix time (the user's zone is UTC). */
const local = (unix: number) => utc(unix).slice(0, 16).replace(' ', 'T');

beforeAll(async () => {
  b = await openBrowser({ acceptDownloads: true });
  page = b.page;
  s = await startTestServer({ FSM_OSMAND_PORT: '0' });
  const owner = await s.user(LOGIN, { password: PASSWORD });
  hash = owner.hash;
  const port = s.running.gateway.ports.osmand.http!;
  const van = s.addTracker(owner.id, '8001', { protocol: 'osmand', label: 'Van 1' });
  const truck = s.addTracker(owner.id, '8002', { protocol: 'osmand', label: 'Truck 2' });
  s.addTracker(owner.id, '8003', { protocol: 'osmand', label: 'Idle 3' });
  await feedTwoTrips(s, port, hash, van, '8001', { lat: 54.6712, lng: 25.2402 });
  await feedTwoTrips(s, port, hash, truck, '8002', { lat: 54.7012, lng: 25.2102 });
}, 240_000);

afterAll(() => closeAll(b, s));

describe.sequential('reports in Chromium', () => {
  test('the screen opens with every tracker chosen and no reports yet', async () => {
    await signIn(page, s!.url, LOGIN, PASSWORD);
    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { name: 'Reports', level: 2 }).waitFor();
    await page.getByText('No reports yet.').waitFor();
    expect(await page.getByRole('group', { name: 'Trackers (3 of 3)' }).isVisible()).toBe(true);
    expect(await page.getByLabel('Report type').inputValue()).toBe('4');
  });

  test('refusals are said in words: no tracker, a period longer than the tariff allows', async () => {
    await page.getByRole('button', { name: 'None', exact: true }).click();
    await page.getByRole('button', { name: 'Generate' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Choose at least one tracker.');
    await page.getByLabel('Van 1').check();
    const now = Math.floor(Date.now() / 1000);
    await page.getByLabel('From').fill(local(now - 40 * 86_400));
    await page.getByRole('button', { name: 'Generate' }).click();
    await page.getByRole('alert').filter({ hasText: 'The period is too long: at most 31 days for this report.' }).waitFor();
    expect((await s!.call('report/tracker/list', { hash })).body.list).toEqual([]);
  });

  test('a trips report is generated, watched until ready and shown as retrieve answers it', async () => {
    await page.getByLabel('Truck 2').check();
    const now = Math.floor(Date.now() / 1000);
    await page.getByLabel('From').fill(local(now - 4 * 3600));
    await page.getByLabel('To').fill(local(now + 120));
    await page.getByRole('button', { name: 'Generate' }).click();
    const item = page.getByRole('list', { name: 'Generated reports' }).getByRole('listitem');
    // Queued, in progress, then ready: the list says which, and the report opens by itself.
    await item.filter({ hasText: /^Trips/ }).waitFor();
    await page.getByRole('heading', { name: 'Trips', level: 2 }).waitFor({ timeout: 30_000 });
    expect(await item.locator('.state').textContent()).toMatch(/^Ready \(asked \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\)$/);

    const [listed] = (await s!.call('report/tracker/list', { hash })).body.list;
    expect(listed).toMatchObject({ title: 'Trips', type: 'trips', state: 'ready', percent: 100 });
    expect(listed.parameters.trackers).toHaveLength(2);
    const report = (await s!.call('report/tracker/retrieve', { hash, report_id: listed.id })).body.report;
    expect(report.sheets.map((x: { header: string }) => x.header)).toEqual(['Summary', 'Van 1', 'Truck 2']);
    expect(await page.getByRole('group', { name: 'Sheets' }).getByRole('button').allTextContents()).toEqual(['Summary', 'Van 1', 'Truck 2']);

    // The van's sheet: each table's cells as the API shows them (`v`), total line included.
    await page.getByRole('button', { name: 'Van 1', exact: true }).click();
    const sheet = report.sheets[1];
    const tables = page.locator('.report table');
    const tableTexts: string[][][] = [];
    for (const section of sheet.sections) {
      if (section.type === 'table') {
        const rows: string[][] = [section.columns.map((c: { title: string }) => c.title)];
        for (const r of section.data[0].rows) rows.push(section.columns.map((c: { field: string }) => r[c.field]?.v ?? ''));
        const total = section.data[0].total;
        if (total) rows.push(section.columns.map((c: { field: string }, i: number) => total[c.field]?.v ?? (i === 0 ? total.text : '')));
        tableTexts.push(rows);
      } else if (section.rows.length) tableTexts.push(section.rows.map((r: { name: string; v: string }) => [r.name, r.v]));
    }
    expect(tableTexts.length).toBeGreaterThan(1);
    expect(await tables.count()).toBe(tableTexts.length);
    const shown = await tables.evaluateAll((ts) => ts.map((t) => [...t.querySelectorAll('tr')].map((tr) => [...tr.children].map((c) => c.textContent ?? ''))));
    expect(shown).toEqual(tableTexts);
    // Two trips in the trips table, and the summary says so.
    const trips = sheet.sections.find((x: { type: string; data?: unknown }) => x.type === 'table');
    expect(trips.data[0].rows).toHaveLength(2);
    // The sheet's track (the van's two trips) on a map above the tables; the summary has none.
    expect(sheet.sections.find((x: { track?: unknown[] }) => x.track)?.track.length).toBeGreaterThan(1);
    await page.getByRole('region', { name: 'Map of the track' }).first().waitFor();
    await page.waitForTimeout(800);
    await shot('1-trips-van');
    await page.getByRole('button', { name: 'Summary', exact: true }).click();
    await page.getByRole('cell', { name: 'Truck 2' }).waitFor();
    expect(await page.getByRole('region', { name: 'Map of the track' }).count()).toBe(0);
    await shot('2-trips-summary');
  });

  test('the report downloads as xlsx, pdf and csv', async () => {
    const item = page.getByRole('list', { name: 'Generated reports' }).getByRole('listitem').first();
    const get = async (format: string) => {
      const [download] = await Promise.all([page.waitForEvent('download'), item.getByRole('button', { name: new RegExp(`as ${format}$`) }).click()]);
      return { name: download.suggestedFilename(), bytes: await readFile((await download.path())!) };
    };
    const xlsx = await get('XLSX');
    expect(xlsx.name).toBe('Trips.xlsx');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.bytes as unknown as ArrayBuffer);
    expect(book.worksheets.map((w) => w.name)).toEqual(['Summary', 'Van 1', 'Truck 2']);
    const pdf = await get('PDF');
    expect(pdf.name).toBe('Trips.pdf');
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const csv = await get('CSV');
    expect(csv.name).toBe('Trips.csv');
    const text = csv.bytes.toString('utf8');
    const lines = text.replace(/^\uFEFF/, '').split('\r\n');
    expect(lines[0]).toMatch(/^Trips,\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} – \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(lines).toContain('Van 1,Trips');
    // Every data row of the van's trips table, as shown in the page.
    const [listed] = (await s!.call('report/tracker/list', { hash })).body.list;
    const report = (await s!.call('report/tracker/retrieve', { hash, report_id: listed.id })).body.report;
    const table = report.sheets[1].sections.find((x: { type: string }) => x.type === 'table');
    for (const r of table.data[0].rows) {
      const cells = table.columns.map((c: { field: string }) => String(r[c.field]?.v ?? ''));
      expect(lines).toContain(cells.map((v: string) => (/[",]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)).join(','));
    }
  });

  test('readable at 200 % zoom: one column, no sideways scrolling', async () => {
    const sideways = await scrollsSideways(b!, `${s!.url}/reports`, async (p) => {
      await p.getByRole('button', { name: /^Show Trips/ }).click();
      await p.getByRole('heading', { name: 'Trips', level: 2 }).waitFor();
    }, join(SHOTS, 'reports-3-zoom-200.png'));
    expect(sideways).toBe(false);
  });

  test('a report is deleted after a confirmation', async () => {
    const item = page.getByRole('list', { name: 'Generated reports' }).getByRole('listitem').first();
    await item.getByRole('button', { name: /^Delete Trips/ }).click();
    await item.getByText('Delete "Trips"?').waitFor();
    await item.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByRole('status').filter({ hasText: 'Report "Trips" deleted.' }).waitFor();
    await page.getByText('No reports yet.').waitFor();
    expect(await page.locator('.report').count()).toBe(0);
    expect((await s!.call('report/tracker/list', { hash })).body.list).toEqual([]);
    expect(b!.pageErrors).toEqual([]);
  });
});
