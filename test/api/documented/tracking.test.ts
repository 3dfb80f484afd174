/**
 * Statuses, chat, tracks, retranslators and map layers as the public documentation writes the
 * requests, checked for the documented members of the answers (issue 23).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasMembers, startHarness, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

describe('statuses', () => {
  it('listings, statuses and a tracker\'s status: documented requests and members', async () => {
    const l = await h.documented('status/listing/create', { listing: { label: 'Courier states', employee_controlled: false, supervisor_controlled: true } }, ['id']);
    const busy = await h.documented('status/create', { listing_id: l.id, status: { label: 'Busy', color: 'E57373' } }, ['id']);
    const free = await h.documented('status/create', { listing_id: l.id, status: { label: 'Free', color: '81C784' } }, ['id']);
    await h.documented('status/update', { status: { id: busy.id, label: 'Busy now', color: 'E57373' } });
    const statuses = await h.documented('status/list', { listing_id: l.id }, ['list']);
    for (const st of statuses.list) hasMembers(st, ['id', 'label', 'color'], 'status');
    await h.documented('status/listing/update', { listing: { id: l.id, label: 'Courier states', employee_controlled: false, supervisor_controlled: true, entries: [free.id, busy.id] } });
    const listings = await h.documented('status/listing/list', {}, ['list']);
    hasMembers(listings.list.find((x: any) => x.id === l.id), ['id', 'label', 'employee_controlled', 'supervisor_controlled', 'entries'], 'listing');
    await h.documented('status/listing/tracker/assign', { tracker_id: h.tracker, listing_id: l.id });
    const a = await h.documented('status/tracker/assign', { tracker_id: h.tracker, new_status_id: busy.id }, ['last_change']);
    hasMembers(a.last_change, ['id', 'old_status_id', 'new_status_id', 'location', 'changed', 'origin'], 'last_change');
    const r = await h.documented('status/tracker/read', { tracker_id: h.tracker }, ['current_status', 'last_change']);
    hasMembers(r.current_status, ['id', 'label', 'color'], 'current_status');
    const list = await h.documented('status/tracker/list', { trackers: [h.tracker] }, ['value']);
    hasMembers(list.value[h.tracker], ['current_status', 'last_change'], 'status/tracker/list value');
    await h.documented('status/delete', { status_id: free.id });
    await h.documented('status/listing/delete', { listing_id: l.id });
  });
});

describe('chat', () => {
  it('send, list, broadcast, mark_read, mark_read_all, unread/count, updated/list', async () => {
    const sent = await h.documented('tracker/chat/send', { tracker_id: h.tracker, message: 'Please call the office' }, ['id']);
    const list = await h.documented('tracker/chat/list', { tracker_id: h.tracker }, ['list']);
    hasMembers(list.list[0], ['id', 'submit_time', 'update_time', 'text', 'type', 'status', 'employee_id'], 'chat message');
    await h.documented('tracker/chat/broadcast', { trackers: [h.tracker], message: 'Depot closes at 18:00' }, ['sent_to', 'not_sent_to']);
    await h.documented('tracker/chat/mark_read', { message_id: sent.id });
    await h.documented('tracker/chat/mark_read_all', { tracker_id: h.tracker });
    await h.documented('tracker/chat/unread/count', {}, ['value']);
    await h.documented('tracker/chat/updated/list', { trackers: [h.tracker] }, ['value']);
  });
});

describe('tracks', () => {
  it('list, read and download take the documented members', async () => {
    const source = h.s.store.trackers.getAny(h.tracker)!.source_id;
    const start = Date.UTC(2031, 3, 2, 7, 0, 0);
    h.s.sql
      .prepare(`INSERT INTO tracks (source_id, type, start_time, end_time, start_lat, start_lng, end_lat, end_lng, points, length_km, max_speed, avg_speed, extent_m) VALUES (?, 'trip', ?, ?, 48.137, 11.575, 48.2, 11.6, 60, 9.2, 71, 30, 9000)`)
      .run(source, start, start + 1_800_000);
    const period = { from: '2031-04-02 00:00:00', to: '2031-04-02 23:59:59' };
    const list = await h.documented('track/list', { tracker_id: h.tracker, ...period, filter: false, count_events: true }, ['limit_exceeded', 'list']);
    hasMembers(list.list[0], ['id', 'start_date', 'start_address', 'max_speed', 'end_date', 'end_address', 'length', 'points', 'avg_speed', 'event_count', 'type'], 'track'); // gsm_lbs: optional (spec)
    await h.documented('track/read', { tracker_id: h.tracker, track_id: list.list[0].id, ...period, filter: false, simplify: false, include_gsm_lbs: false }, ['limit_exceeded', 'list']);
    const kml = await h.s.call('track/download', { hash: h.user.hash, tracker_id: h.tracker, ...period, format: 'kml', split: false });
    expect(kml.status).toBe(200);
  });
});

describe('retranslators', () => {
  it('protocols, create, list, update, bind, tracker list, unbind, delete', async () => {
    const protocols = await h.documented('retranslator/protocol/list', {}, ['list']);
    hasMembers(protocols.list[0], ['id', 'name', 'has_login', 'has_password', 'fake_device_id_pattern', 'required_login', 'required_password'], 'retranslator protocol');
    const p = protocols.list.find((x: any) => !x.required_login && !x.required_password) ?? protocols.list[0];
    // login and password are optional strings: sent only for a protocol that uses them.
    const body = { name: 'Partner server', protocol_id: p.id, address: '127.0.0.1', port: 15000, ...(p.has_login ? { login: 'proto' } : {}), ...(p.has_password ? { password: 'qewtyr' } : {}), enabled: false };
    const c = await h.documented('retranslator/create', { retranslator: body }, ['id']);
    const list = await h.documented('retranslator/list', {}, ['list']);
    hasMembers(list.list[0], ['id', 'name', 'protocol_id', 'address', 'port', 'enabled'], 'retranslator');
    await h.documented('retranslator/update', { retranslator: { ...body, id: c.id, name: 'Partner server 2' } });
    await h.documented('tracker/retranslator/bind', { tracker_id: h.tracker, retranslator_id: c.id, fake_device_id: '359633100000001' });
    const bound = await h.documented('tracker/retranslator/list', { tracker_id: h.tracker }, ['list']);
    hasMembers(bound.list[0], ['retranslator_id', 'fake_device_id'], 'tracker retranslator');
    await h.documented('tracker/retranslator/unbind', { tracker_id: h.tracker, retranslator_id: c.id });
    await h.documented('retranslator/delete', { retranslator_id: c.id });
  });
});

describe('map layers', () => {
  it('upload (label and a KML file), list, read (the KML), update, delete', async () => {
    const kml = '<?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><name>Gate</name><Point><coordinates>11.575,48.137</coordinates></Point></Placemark></Document></kml>';
    const form = new FormData();
    form.set('hash', h.user.hash);
    form.set('label', 'Depot gates');
    form.set('file', new Blob([kml], { type: 'application/vnd.google-earth.kml+xml' }), 'gates.kml');
    const up = await fetch(`${h.s.url}/v2/map_layer/upload`, { method: 'POST', body: form }).then((r) => r.json());
    expect(up, JSON.stringify(up)).toMatchObject({ success: true, id: expect.any(Number) });
    const list = await h.documented('map_layer/list', {}, ['list']);
    hasMembers(list.list[0], ['id', 'label'], 'map layer');
    const read = await fetch(`${h.s.url}/v2/map_layer/read?hash=${h.user.hash}&id=${up.id}`);
    expect(read.headers.get('content-type')).toMatch(/^application\/vnd\.google-earth\.kml\+xml/);
    expect(await read.text()).toContain('Gate');
    await h.documented('map_layer/update', { layer: { id: up.id, label: 'Gates' } });
    await h.documented('map_layer/delete', { id: up.id });
  });
});
