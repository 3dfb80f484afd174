/** Chat with trackers over real HTTP and a real Teltonika TCP connection (issue 3: all seven calls of /tracker/chat). */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crc16Ibm } from '../../protocols/binary.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const imeiPacket = (imei: string) => Buffer.concat([Buffer.from([0, imei.length]), Buffer.from(imei)]);
/** A Codec 12 packet; type 0x06 is a response from the device (text it sends). */
function codec12(type: number, text: string): Buffer {
  const body = Buffer.from(text);
  const data = Buffer.concat([Buffer.from([0x0c, 0x01, type]), Buffer.alloc(4), body, Buffer.from([0x01])]);
  data.writeUInt32BE(body.length, 3);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 4);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc16Ibm(data));
  return Buffer.concat([head, data, crc]);
}

async function device(port: number, imei: string) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  let got = Buffer.alloc(0);
  socket.on('data', (d) => (got = Buffer.concat([got, d])));
  socket.on('error', () => undefined);
  const wait = async (cond: () => boolean) => {
    for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
    return cond();
  };
  socket.write(imeiPacket(imei));
  await wait(() => got.length >= 1);
  return { socket, got: () => got, wait };
}

let s: TestServer;
let port: number;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
let truck: number;
beforeAll(async () => {
  s = await startTestServer({ FSM_TELTONIKA_PORT: '0', FSM_TIME_ZONE: 'UTC' });
  port = s.running.gateway.ports.teltonika.tcp!;
  ann = await s.user('ann@example.com');
  bob = await s.user('bob@example.com');
  truck = s.addTracker(ann.id, '356307042441013');
});
afterAll(() => s.close());

const status = (id: number) => s.store.chat.get(id)!.status;

describe('sending', () => {
  it('to a connected device: written as Codec 12 text, DELIVERED with update_time once the device answers it', async () => {
    const d = await device(port, '356307042441013');
    const r = await s.call('tracker/chat/send', { hash: ann.hash, tracker_id: truck, message: 'Go to depot 4' });
    expect(r.body).toEqual({ success: true, id: expect.any(Number) });
    expect(await d.wait(() => d.got().includes(Buffer.from('Go to depot 4')))).toBe(true);
    expect(d.got().subarray(1).toString('hex')).toBe(codec12(0x05, 'Go to depot 4').toString('hex'));
    // written, not yet confirmed: Teltonika confirms a command with a Codec 12 response (type 0x06)
    await new Promise((res) => setTimeout(res, 200));
    expect(status(r.body.id)).toBe('PENDING');
    d.socket.write(codec12(0x06, 'Received'));
    await d.wait(() => status(r.body.id) === 'DELIVERED');
    // the response is also text from the device: an INCOMING message, marked read here
    await d.wait(() => s.store.chat.unread(truck) > 0);
    s.store.chat.markTrackersRead([truck]);
    const list = (await s.call('tracker/chat/list', { hash: ann.hash, tracker_id: truck })).body.list;
    expect(list.find((m: { id: number }) => m.id === r.body.id)).toEqual({ id: r.body.id, submit_time: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/), update_time: expect.stringMatching(/^\d{4}-/), text: 'Go to depot 4', type: 'OUTGOING', status: 'DELIVERED', employee_id: null });
    d.socket.destroy();
  });

  it('to an offline device: PENDING, kept across a restart, delivered when it connects', async () => {
    const dir = s.dataDir;
    const r = await s.call('tracker/chat/send', { hash: ann.hash, tracker_id: truck, message: 'Call the office' });
    await new Promise((res) => setTimeout(res, 200));
    expect(status(r.body.id)).toBe('PENDING');
    await s.close({ keepDataDir: true });
    s = await startTestServer({ FSM_TELTONIKA_PORT: '0' }, dir);
    port = s.running.gateway.ports.teltonika.tcp!;
    expect(status(r.body.id)).toBe('PENDING');
    const d = await device(port, '356307042441013');
    expect(await d.wait(() => d.got().includes(Buffer.from('Call the office')))).toBe(true);
    d.socket.write(codec12(0x06, 'Received'));
    await d.wait(() => status(r.body.id) === 'DELIVERED');
    expect(status(r.body.id)).toBe('DELIVERED');
    await d.wait(() => s.store.chat.unread(truck) > 0);
    s.store.chat.markTrackersRead([truck]);
    d.socket.destroy();
  });

  it('text from the device becomes an INCOMING message, unread until marked', async () => {
    const d = await device(port, '356307042441013');
    d.socket.write(codec12(0x06, 'On my way'));
    await d.wait(() => s.store.chat.unread(truck) > 0);
    const list = (await s.call('tracker/chat/list', { hash: ann.hash, tracker_id: truck, ascending: false, limit: 1 })).body.list;
    expect(list).toEqual([expect.objectContaining({ text: 'On my way', type: 'INCOMING', status: 'DELIVERED' })]);
    expect((await s.call('tracker/chat/unread/count', { hash: ann.hash })).body.value).toEqual({ [truck]: 1 });
    expect((await s.call('tracker/chat/mark_read', { hash: ann.hash, message_id: list[0].id })).body).toEqual({ success: true });
    expect((await s.call('tracker/chat/unread/count', { hash: ann.hash })).body.value).toEqual({ [truck]: 0 });
    d.socket.write(codec12(0x06, 'Arrived'));
    await d.wait(() => s.store.chat.unread(truck) > 0);
    expect((await s.call('tracker/chat/mark_read_all', { hash: ann.hash })).body).toEqual({ success: true });
    expect(s.store.chat.unread(truck)).toBe(0);
    const upd = (await s.call('tracker/chat/updated/list', { hash: ann.hash, trackers: [truck] })).body.value;
    expect(upd[truck]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    d.socket.destroy();
  });
});

describe('errors and limits', () => {
  it('214 for a tracker whose protocol carries no text; 208 blocked; 201 unknown or another user\'s', async () => {
    const h02 = s.addTracker(ann.id, '4209900001', { protocol: 'h02' });
    expect((await s.call('tracker/chat/send', { hash: ann.hash, tracker_id: h02, message: 'x' })).body.status.code).toBe(214);
    const blocked = s.addTracker(ann.id, '356307042441077');
    s.store.trackers.setBlocked(s.store.trackers.getAny(blocked)!.source_id, true);
    expect((await s.call('tracker/chat/send', { hash: ann.hash, tracker_id: blocked, message: 'x' })).body.status.code).toBe(208);
    expect((await s.call('tracker/chat/send', { hash: bob.hash, tracker_id: truck, message: 'x' })).body.status.code).toBe(201);
    expect((await s.call('tracker/chat/list', { hash: bob.hash, tracker_id: truck })).body.status.code).toBe(201);
  });
  it('236 when the tariff has no chat', async () => {
    const t = s.addTracker(bob.id, '356307042441088');
    const tariff = s.store.tariffs.copy(1, 'no chat');
    s.store.tariffs.update(tariff, { has_chat: false });
    s.sql.prepare('UPDATE sources SET tariff_id = ? WHERE id = ?').run(tariff, s.store.trackers.getAny(t)!.source_id);
    expect((await s.call('tracker/chat/send', { hash: bob.hash, tracker_id: t, message: 'x' })).body.status.code).toBe(236);
  });
  it('7 for a message over 20000 characters, a limit over 1024, more than 300 trackers; nothing stored', async () => {
    const before = s.sql.prepare('SELECT COUNT(*) FROM chat_messages').pluck().get();
    const long = await s.call('tracker/chat/send', { hash: ann.hash, tracker_id: truck, message: 'x'.repeat(20001) });
    expect(long.body.errors[0].parameter).toBe('message');
    expect((await s.call('tracker/chat/list', { hash: ann.hash, tracker_id: truck, limit: 1025 })).body.errors[0].parameter).toBe('limit');
    const many = Array.from({ length: 301 }, (_, i) => i + 1);
    expect((await s.call('tracker/chat/broadcast', { hash: ann.hash, trackers: many, message: 'x' })).body.errors[0].parameter).toBe('trackers');
    expect((await s.call('tracker/chat/updated/list', { hash: ann.hash, trackers: many })).body.errors[0].parameter).toBe('trackers');
    expect(s.sql.prepare('SELECT COUNT(*) FROM chat_messages').pluck().get()).toBe(before);
    expect((await s.call('tracker/chat/send', { hash: ann.hash, tracker_id: truck, message: 'x'.repeat(20000) })).body.success).toBe(true);
  });
  it('broadcast: sent_to and not_sent_to; 217 for trackers that do not exist', async () => {
    const h02 = s.store.trackers.list(ann.id).find((t) => t.protocol === 'h02')!.id;
    const r = await s.call('tracker/chat/broadcast', { hash: ann.hash, trackers: [truck, h02], message: 'All stop' });
    expect(r.body).toEqual({ success: true, sent_to: [truck], not_sent_to: [h02] });
    expect((await s.call('tracker/chat/broadcast', { hash: ann.hash, trackers: [truck, 999999], message: 'x' })).body.status.code).toBe(217);
  });
  it('mark_read needs exactly one of message_id and message_ids; another user\'s message is not found', async () => {
    expect((await s.call('tracker/chat/mark_read', { hash: ann.hash })).body.status.code).toBe(7);
    const mine = s.store.chat.list(truck, 0, Date.now() + 1000, 1, true)[0].id;
    expect((await s.call('tracker/chat/mark_read', { hash: bob.hash, message_ids: [mine] })).body.status.code).toBe(201);
  });
});
