/**
 * The console's working statuses screen end to end (docs/console.md): Debian's Chromium against the
 * real server. A status listing made, given statuses, reordered, edited; trackers given the
 * listing and a status; a change the field app makes shows by itself; a listing closed to
 * operators shows the status without a choice; a status and the listing deleted. Each step is
 * checked against what the API answers. Screenshots in test-results/console/statuses-*.png.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { changeStatus } from '../../src/statuses/statuses.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { SHOTS } from './browser.ts';
import { closeAll, type ConsoleBrowser, openBrowser, signIn, scrollsSideways } from './flow.ts';

const LOGIN = 'shift.lead@example.com';
const PASSWORD = 'correct-horse-5';

let s: TestServer | undefined;
let hash: string;
let ownerId: number;
let zoe: number;
let van2: number;
let b: ConsoleBrowser | undefined;
let page: Page;
const shot = (name: string) => page.screenshot({ path: join(SHOTS, `statuses-${name}.png`) });
const api = async (path: string, params: Record<string, unknown> = {}) => {
  const r = await s!.call(path, { hash, ...params });
  if (!r.body.success) throw new Error(`${path}: ${JSON.stringify(r.body)}`);
  return r.body;
};
const listingId = async () => (await api('status/listing/list')).list[0].id as number;
const statusList = async () => (await api('status/list', { listing_id: await listingId() })).list;
const row = (tracker: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: tracker, exact: true }) });
const note = (text: string) => page.getByRole('status').filter({ hasText: text }).waitFor();

beforeAll(async () => {
  b = await openBrowser();
  page = b.page;
  s = await startTestServer();
  const owner = await s.user(LOGIN, { password: PASSWORD });
  hash = owner.hash;
  ownerId = owner.id;
  zoe = s.addTracker(owner.id, '9101', { label: 'Phone 1' });
  van2 = s.addTracker(owner.id, '9102', { label: 'Van 2' });
  s.addTracker(owner.id, '9103', { label: 'Van 3' });
  await api('employee/create', { employee: { first_name: 'Zoe', last_name: 'Adams', tracker_id: zoe } });
}, 180_000);

afterAll(() => closeAll(b, s));

describe.sequential('working statuses in Chromium', () => {
  test('no listings yet; every tracker without one', async () => {
    await signIn(page, s!.url, LOGIN, PASSWORD);
    await page.getByRole('link', { name: 'Statuses' }).click();
    await page.getByRole('heading', { name: 'Status listings', level: 2 }).waitFor();
    await page.getByText('No status listings yet.').waitFor();
    const rows = await page.locator('table.tracker-statuses tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c.querySelector('select') ? (c.querySelector('select') as HTMLSelectElement).selectedOptions[0].text : c.textContent))));
    expect(rows).toEqual([
      ['Zoe Adams', 'Zoe Adams', 'No listing', '—', '—'],
      ['Van 2', '—', 'No listing', '—', '—'],
      ['Van 3', '—', 'No listing', '—', '—'],
    ]);
  });

  test('a listing is made with three statuses, reordered and edited', async () => {
    await page.getByLabel('Name of a new listing').fill('Shift');
    await page.getByRole('button', { name: 'Create listing' }).click();
    await note('Listing "Shift" created.');
    await page.getByRole('heading', { name: 'Listing: Shift' }).waitFor();
    await page.getByText('No statuses yet.').first().waitFor();
    for (const [label, colour] of [['Busy', '#cf222e'], ['Free', '#1a7f37'], ['Lunch', '#bf8700']]) {
      await page.getByLabel('Name of a new status').fill(label);
      await page.getByLabel('Colour of the new status').fill(colour);
      await page.getByRole('button', { name: 'Add status' }).click();
      await note(`Status "${label}" added.`);
    }
    const shown = () => page.getByRole('list', { name: 'Statuses of Shift' }).locator('.name').allTextContents();
    await expect.poll(shown).toEqual(['Busy', 'Free', 'Lunch']);
    expect(await statusList()).toEqual([
      { id: expect.any(Number), label: 'Busy', color: 'CF222E' },
      { id: expect.any(Number), label: 'Free', color: '1A7F37' },
      { id: expect.any(Number), label: 'Lunch', color: 'BF8700' },
    ]);
    // The listing in the side list shows its statuses.
    expect(await page.getByRole('list', { name: 'Status listings' }).getByRole('button').textContent()).toBe('ShiftBusy · Free · Lunch');

    await page.getByRole('button', { name: 'Move Lunch up' }).click();
    await note('"Lunch" moved.');
    await expect.poll(shown).toEqual(['Busy', 'Lunch', 'Free']);
    expect((await statusList()).map((x: { label: string }) => x.label)).toEqual(['Busy', 'Lunch', 'Free']);
    expect(await page.getByRole('button', { name: 'Move Busy up' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Move Free down' }).isDisabled()).toBe(true);

    await page.getByRole('button', { name: 'Edit Free' }).click();
    const form = page.getByRole('form', { name: 'Edit Free' });
    await form.getByLabel('Status name').fill('Available');
    await form.getByLabel('Status colour').fill('#2da44e');
    await form.getByRole('button', { name: 'Save' }).click();
    await note('Status "Available" saved.');
    await expect.poll(shown).toEqual(['Busy', 'Lunch', 'Available']);
    expect((await statusList())[2]).toMatchObject({ label: 'Available', color: '2DA44E' });
  });

  test('trackers get the listing and a status; the last change says when and by whom', async () => {
    await page.getByLabel('Status listing of Zoe Adams').selectOption({ label: 'Shift' });
    await note('Status listing of Zoe Adams changed.');
    await page.getByLabel('Status listing of Van 2').selectOption({ label: 'Shift' });
    await note('Status listing of Van 2 changed.');
    const zoeStatus = page.getByLabel('Status of Zoe Adams');
    await expect.poll(() => zoeStatus.locator('option').allTextContents()).toEqual(['No status', 'Busy', 'Lunch', 'Available']);
    await zoeStatus.selectOption({ label: 'Busy' });
    await note('Zoe Adams: Busy.');
    await page.getByLabel('Status of Van 2').selectOption({ label: 'Available' });
    await note('Van 2: Available.');
    const read = await api('status/tracker/read', { tracker_id: zoe });
    expect(read.current_status).toMatchObject({ label: 'Busy', color: 'CF222E' });
    expect(read.last_change).toMatchObject({ origin: 'supervisor', old_status_id: null, new_status_id: read.current_status.id });
    expect(await row('Zoe Adams').locator('td').last().textContent()).toBe(`${read.last_change.changed} by an operator`);
    // The current status has no "No status" choice any more.
    await expect.poll(() => zoeStatus.locator('option').allTextContents()).toEqual(['Busy', 'Lunch', 'Available']);
    expect(await row('Van 3').getByRole('cell').nth(2).textContent()).toBe('—');
    await page.waitForTimeout(300);
    await shot('1-listing');
  });

  test('readable at 200 % zoom: one column, no sideways scrolling', async () => {
    const sideways = await scrollsSideways(b!, `${s!.url}/statuses`, (p) => p.getByLabel('Status of Zoe Adams').waitFor(), join(SHOTS, 'statuses-2-zoom-200.png'));
    expect(sideways).toBe(false);
  });

  test('a change made in the field app shows without a reload', async () => {
    await page.getByLabel('Employees may change the status in the field app').check();
    await page.getByRole('button', { name: 'Save listing' }).click();
    await note('Listing "Shift" saved.');
    expect((await api('status/listing/read', { listing_id: await listingId() })).value).toMatchObject({ employee_controlled: true, supervisor_controlled: true });
    const lunch = (await statusList())[1];
    const change = await changeStatus({ store: s!.store, now: Date.now }, s!.store.trackers.get(ownerId, zoe)!, lunch.id, 'employee');
    expect(change.origin).toBe('employee');
    await expect.poll(() => page.getByLabel('Status of Zoe Adams').evaluate((el) => (el as HTMLSelectElement).selectedOptions[0].text), { timeout: 12_000 }).toBe('Lunch');
    const read = await api('status/tracker/read', { tracker_id: zoe });
    expect(await row('Zoe Adams').locator('td').last().textContent()).toBe(`${read.last_change.changed} by the employee`);
  });

  test('a listing closed to operators shows the status without a choice', async () => {
    await page.getByLabel('Operators may change the status').uncheck();
    await page.getByRole('button', { name: 'Save listing' }).click();
    await note('Listing "Shift" saved.');
    await expect.poll(() => row('Zoe Adams').getByRole('cell').nth(2).textContent()).toBe('Lunch (set by the employee)');
    expect(await page.getByLabel('Status of Zoe Adams').count()).toBe(0);
    // The API refuses an operator's change too (13): the screen offers none.
    const r = await s!.call('status/tracker/assign', { hash, tracker_id: van2, new_status_id: (await statusList())[0].id });
    expect(r.body.status.code).toBe(13);
  });

  test('a status and then the listing are deleted after a confirmation', async () => {
    await page.getByRole('button', { name: 'Delete Lunch' }).click();
    await page.getByText('Delete the status "Lunch"? Trackers in it lose their status.').waitFor();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await note('Status "Lunch" deleted.');
    await expect.poll(async () => (await statusList()).map((x: { label: string }) => x.label)).toEqual(['Busy', 'Available']);
    await expect.poll(() => row('Zoe Adams').getByRole('cell').nth(2).textContent()).toBe('No status (set by the employee)');
    expect((await api('status/tracker/read', { tracker_id: zoe })).current_status).toBe(null);

    await page.getByRole('button', { name: 'Delete listing' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await note('Listing "Shift" deleted.');
    await page.getByText('No status listings yet.').waitFor();
    expect((await api('status/listing/list')).list).toEqual([]);
    await expect.poll(() => page.getByLabel('Status listing of Zoe Adams').evaluate((el) => (el as HTMLSelectElement).selectedOptions[0].text)).toBe('No listing');
    expect(b!.pageErrors).toEqual([]);
  });
});
