/**
 * Idempotency keys of the field app (docs/field-app.md, "Idempotency keys"): app/chat/send,
 * app/form/submit, app/checkin/create, app/position/send and app/status/assign sent again with the same key answer the first answer and
 * store nothing new; the same key on another call is 7; keys are per token; without a key every call counts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { formatDateTime } from '../../src/core/time.ts';

let s: TestServer;
let owner: { id: number; hash: string };
let tracker: number;
let token: string;
const TZ = 'UTC';

beforeAll(async () => {
  s = await startTestServer();
  owner = await s.user('idem@example.com', { timeZone: TZ });
  tracker = s.addTracker(owner.id, 'idem-phone', { protocol: 'osmand', label: 'Phone' });
  const { body } = await s.call('tracker/app/activation/create', { hash: owner.hash, tracker_id: tracker });
  token = (await s.call('app/activate', { code: body.code })).body.token;
});
afterAll(async () => {
  await s?.close();
});

const app = (path: string, p: Record<string, unknown>, t = token) => s.call(path, { hash: t, ...p });
const count = (sql: string, ...args: unknown[]) => s.sql.prepare(sql).pluck().get(...args) as number;

describe('idempotency keys of the app calls', () => {
  it('app/chat/send: the same key answers the same id and stores one message; without a key each counts', async () => {
    const first = await app('app/chat/send', { message: 'On my way', idempotency_key: 'k-chat-1' });
    expect(first.body).toEqual({ success: true, id: expect.any(Number) });
    const again = await app('app/chat/send', { message: 'On my way', idempotency_key: 'k-chat-1' });
    expect(again.body).toEqual(first.body);
    // Two at once with a new key: one message.
    const both = await Promise.all([1, 2].map(() => app('app/chat/send', { message: 'Arrived', idempotency_key: 'k-chat-2' })));
    expect(both[0].body).toEqual(both[1].body);
    await app('app/chat/send', { message: 'No key' });
    await app('app/chat/send', { message: 'No key' });
    expect(count('SELECT count(*) FROM chat_messages WHERE tracker_id = ?', tracker)).toBe(4);
    // The key of another call: 7 naming it.
    const other = await app('app/form/submit', { task_id: 1, values: {}, location: { lat: 0, lng: 0 }, idempotency_key: 'k-chat-1' });
    expect([other.status, other.body.status.code, other.body.errors]).toEqual([400, 7, [{ parameter: 'idempotency_key', error: 'was used for app/chat/send' }]]);
    expect((await app('app/chat/send', { message: 'x', idempotency_key: 'k'.repeat(65) })).body.errors[0].parameter).toBe('idempotency_key');
  });

  it('keys are per token: another phone of the tracker with the same key sends its own message', async () => {
    const { body } = await s.call('tracker/app/activation/create', { hash: owner.hash, tracker_id: tracker });
    const second = (await s.call('app/activate', { code: body.code })).body.token;
    const a = await app('app/chat/send', { message: 'From phone 2', idempotency_key: 'k-chat-1' }, second);
    expect(a.body.success).toBe(true);
    expect(count('SELECT count(*) FROM chat_messages WHERE tracker_id = ?', tracker)).toBe(5);
  });

  it('app/form/submit and app/checkin/create: a repeat answers the first answer and stores nothing new', async () => {
    const tpl = (await s.call('form/template/create', { hash: owner.hash, template: { label: 'T', fields: [{ id: 'note', label: 'Note', type: 'text' }] } })).body.id;
    const now = Date.now();
    const task = (
      await s.call('task/create', {
        hash: owner.hash,
        create_form: true,
        task: { label: 'Job', location: { lat: 1, lng: 2, address: 'A', radius: 100 }, from: formatDateTime(now - 3_600_000, TZ), to: formatDateTime(now + 3_600_000, TZ), tracker_id: tracker, form_template_id: tpl },
      })
    ).body.id;
    const submit = (value: string, time: string) => app('app/form/submit', { task_id: task, values: { note: { type: 'text', value } }, location: { lat: 1, lng: 2 }, time, idempotency_key: 'k-form' });
    const first = await submit('First', '2026-01-01 10:00:00');
    expect(first.body).toMatchObject({ success: true, value: { values: { note: { type: 'text', value: 'First' } }, submitted: '2026-01-01 10:00:00' } });
    const again = await submit('Second', '2026-01-01 11:00:00');
    expect(again.body).toEqual(first.body);
    expect((await s.call('task/form/read', { hash: owner.hash, task_id: task })).body.value).toMatchObject({ values: { note: { value: 'First' } }, submitted: '2026-01-01 10:00:00' });

    const checkin = { location: { lat: 1, lng: 2 }, comment: 'Here', idempotency_key: 'k-checkin' };
    const c1 = await app('app/checkin/create', checkin);
    expect(c1.body).toEqual({ success: true, id: expect.any(Number), form: null });
    expect((await app('app/checkin/create', checkin)).body).toEqual(c1.body);
    expect(count('SELECT count(*) FROM checkins WHERE tracker_id = ?', tracker)).toBe(1);
    // A refused call stores no answer: the same key may be used again once the values are right.
    const refused = await app('app/checkin/create', { location: { lat: 1, lng: 2 }, file_ids: [999999], idempotency_key: 'k-checkin-2' });
    expect(refused.body.status.code).toBe(7);
    expect((await app('app/checkin/create', { location: { lat: 1, lng: 2 }, idempotency_key: 'k-checkin-2' })).body.success).toBe(true);
  });

  it('app/position/send: a retried batch is stored once; the same key never stores other positions', async () => {
    const writer = s.running.gateway.core.writer;
    const at = (min: number) => `2026-03-02 08:${String(min).padStart(2, '0')}:00`;
    const batch = [
      { time: at(1), lat: 52.52, lng: 13.405, accuracy: 6, speed: 18, heading: 90, altitude: 40 },
      { time: at(2), lat: 52.521, lng: 13.406, accuracy: 5 },
    ];
    const before = writer.committed;
    const first = await app('app/position/send', { positions: batch, idempotency_key: 'k-pos-1' });
    expect(first.body).toEqual({ success: true, count: 2 });
    expect(writer.committed - before).toBe(2);
    // The retry after a lost answer: the first answer, nothing handed to the writer again.
    expect((await app('app/position/send', { positions: batch, idempotency_key: 'k-pos-1' })).body).toEqual(first.body);
    // Two at once with a new key: written once.
    const both = await Promise.all([1, 2].map(() => app('app/position/send', { positions: [{ time: at(3), lat: 52.522, lng: 13.407 }], idempotency_key: 'k-pos-2' })));
    expect(both.map((r) => r.body)).toEqual([{ success: true, count: 1 }, { success: true, count: 1 }]);
    expect(writer.committed - before).toBe(3);
    // The same key with other positions (a phone that built the batch again): the first answer, not stored.
    expect((await app('app/position/send', { positions: [{ time: at(9), lat: 1, lng: 1 }], idempotency_key: 'k-pos-1' })).body).toEqual(first.body);
    expect(writer.committed - before).toBe(3);
    const track = await s.call('track/read', { hash: owner.hash, tracker_id: tracker, from: at(0), to: at(30) });
    expect(track.body.list.map((p: { lat: number; lng: number; get_time: string; speed: number; heading: number; precision: number }) => [p.get_time, p.lat, p.lng])).toEqual([
      [at(1), 52.52, 13.405],
      [at(2), 52.521, 13.406],
      [at(3), 52.522, 13.407],
    ]);
    expect(track.body.list[0]).toMatchObject({ speed: 18, heading: 90, precision: 6, alt: 40 });
    expect(count('SELECT count(*) FROM fixes WHERE source_id = (SELECT source_id FROM trackers WHERE id = ?)', tracker)).toBe(3);
    // The key of another call is 7 naming it; a bad time or too many positions are 7 naming them.
    const other = await app('app/position/send', { positions: batch, idempotency_key: 'k-chat-1' });
    expect([other.status, other.body.errors]).toEqual([400, [{ parameter: 'idempotency_key', error: 'was used for app/chat/send' }]]);
    const bad = await app('app/position/send', { positions: [{ time: 'yesterday', lat: 1, lng: 2 }] });
    expect([bad.status, bad.body.status.code, bad.body.errors]).toEqual([400, 7, [{ parameter: 'positions.0.time', error: 'expected yyyy-MM-dd HH:mm:ss' }]]);
    const many = await app('app/position/send', { positions: Array.from({ length: 101 }, (_, i) => ({ time: at(i % 60), lat: 1, lng: 2 })) });
    expect([many.body.status.code, many.body.errors[0].parameter]).toEqual([7, 'positions']);
    const far = await app('app/position/send', { positions: [{ time: at(1), lat: 91, lng: 2 }] });
    expect([far.body.status.code, far.body.errors[0].parameter]).toEqual([7, 'positions.0.lat']);
  });

  it('app/status/assign: a change queued offline and sent twice is one change, not a 263', async () => {
    const listing = (await s.call('status/listing/create', { hash: owner.hash, listing: { label: 'Shift', employee_controlled: true } })).body.id;
    const duty = (await s.call('status/create', { hash: owner.hash, listing_id: listing, status: { label: 'On duty', color: '2e9e44' } })).body.id;
    await s.call('status/listing/tracker/assign', { hash: owner.hash, tracker_id: tracker, listing_id: listing });
    const first = await app('app/status/assign', { new_status_id: duty, idempotency_key: 'k-status-1' });
    expect(first.body).toMatchObject({ success: true, last_change: { new_status_id: duty, origin: 'employee' } });
    expect((await app('app/status/assign', { new_status_id: duty, idempotency_key: 'k-status-1' })).body).toEqual(first.body);
    expect(count('SELECT count(*) FROM status_changes WHERE tracker_id = ?', tracker)).toBe(1);
    // Without the key the same change is 263, as documented.
    expect((await app('app/status/assign', { new_status_id: duty })).body.status.code).toBe(263);
  });

  it('revoking the token drops its keys', async () => {
    expect(count('SELECT count(*) FROM app_requests')).toBeGreaterThan(0);
    await s.call('tracker/app/revoke', { hash: owner.hash, tracker_id: tracker });
    expect(count('SELECT count(*) FROM app_requests')).toBe(0);
  });
});
