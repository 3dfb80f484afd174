/**
 * tracker/* as documented (issue 23): tracker/list and tracker/read answer the tracker object's
 * members; tracker/settings/read|update are the tracker's own label and group_id (the processing
 * settings that answered there before are tracker/processing_settings/*).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedServer, expectMembers, type Documented } from './harness.ts';

let d: Documented;
let van: number;
beforeAll(async () => {
  d = await documentedServer('trackers-doc@example.com');
  van = d.s.addTracker(d.userId, 'doc-tracker-1', { label: 'Courier 1' });
});
afterAll(() => d?.close());

const TRACKER_MEMBERS = ['id', 'label', 'clone', 'group_id', 'source'];
const SOURCE_MEMBERS = ['id', 'device_id', 'model', 'blocked', 'tariff_id', 'status_listing_id', 'creation_date', 'tariff_end_date', 'phone'];

describe('tracker/list and tracker/read (documented members)', () => {
  it('answer the tracker object; list items carry tag_bindings', async () => {
    const { list } = await d.ok('tracker/list');
    for (const t of list) {
      expectMembers(t, [...TRACKER_MEMBERS, 'tag_bindings'], 'tracker/list item');
      expectMembers(t.source, SOURCE_MEMBERS, 'tracker/list item source');
    }
    const { value } = await d.ok('tracker/read', { tracker_id: van });
    expectMembers(value, TRACKER_MEMBERS, 'tracker/read value');
    expectMembers(value.source, SOURCE_MEMBERS, 'tracker/read value source');
  });
});

describe('tracker/settings (documented)', () => {
  it('read answers settings {label, group_id}', async () => {
    expect(await d.call('tracker/settings/read', { tracker_id: van })).toEqual({ success: true, settings: { label: 'Courier 1', group_id: -1 } });
  });
  it('update takes label (and group_id, read only by the spec: accepted when unchanged)', async () => {
    expect(await d.call('tracker/settings/update', { tracker_id: van, label: 'Courier', group_id: -1 })).toEqual({ success: true });
    expect((await d.ok('tracker/settings/read', { tracker_id: van })).settings).toEqual({ label: 'Courier', group_id: -1 });
    expect((await d.ok('tracker/list')).list.find((t: { id: number }) => t.id === van).label).toBe('Courier');
    const moved = await d.call('tracker/settings/update', { tracker_id: van, label: 'Courier', group_id: 1 });
    expect(moved.status.code).toBe(7);
    expect(moved.errors[0].parameter).toBe('group_id');
    for (const label of ['', 'x'.repeat(61), 'a<b>']) expect((await d.call('tracker/settings/update', { tracker_id: van, label })).errors[0].parameter, label).toBe('label');
    expect((await d.ok('tracker/settings/read', { tracker_id: van })).settings.label).toBe('Courier');
  });
  it('documented errors: 201 unknown tracker, 208 blocked', async () => {
    expect((await d.call('tracker/settings/read', { tracker_id: 999_999 })).status.code).toBe(201);
    expect((await d.call('tracker/settings/update', { tracker_id: 999_999, label: 'X' })).status.code).toBe(201);
    const blocked = d.s.addTracker(d.userId, 'doc-tracker-2');
    d.s.sql.prepare('UPDATE sources SET blocked = 1 WHERE id = (SELECT source_id FROM trackers WHERE id = ?)').run(blocked);
    expect((await d.call('tracker/settings/read', { tracker_id: blocked })).status.code).toBe(208);
  });
  it('the processing settings have their own name; our older settings object is still read by update', async () => {
    expect((await d.ok('tracker/processing_settings/read', { tracker_id: van })).value).toMatchObject({ parking_min_seconds: 300, speed_limit: null });
    expect(await d.call('tracker/settings/update', { tracker_id: van, settings: { speed_limit: 90 } })).toEqual({ success: true });
    expect((await d.ok('tracker/processing_settings/read', { tracker_id: van })).value.speed_limit).toBe(90);
    expect((await d.ok('tracker/settings/read', { tracker_id: van })).settings.label).toBe('Courier');
  });
});

describe('tracker state calls (documented members)', () => {
  it('get_diagnostics, get_inputs, get_fuel, get_counters answer their members for a tracker that sent nothing yet', async () => {
    const quiet = d.s.addTracker(d.userId, 'doc-tracker-3');
    expectMembers(await d.ok('tracker/get_diagnostics', { tracker_id: quiet }), ['user_time', 'inputs', 'states', 'update_time'], 'get_diagnostics');
    expectMembers(await d.ok('tracker/get_inputs', { tracker_id: quiet }), ['user_time', 'inputs', 'states', 'update_time'], 'get_inputs');
    expectMembers(await d.ok('tracker/get_fuel', { tracker_id: quiet }), ['user_time', 'inputs', 'update_time'], 'get_fuel');
    expectMembers(await d.ok('tracker/get_counters', { tracker_id: quiet }), ['user_time', 'list'], 'get_counters');
    expect((await d.call('tracker/get_last_gps_point', { tracker_id: quiet })).status.code).toBe(204);
  });
});
