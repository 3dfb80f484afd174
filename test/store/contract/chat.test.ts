/** The chat area of the contract (docs/store.md): messages between users and trackers, the same answers on every engine. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DataStore } from '../../../src/store/contract.ts';
import type { ChatRow } from '../../../src/store/chat.ts';
import { engines } from './engines.ts';

describe.each(engines('users', 'trackers', 'chat'))('$name engine: chat', (engine) => {
  let data: DataStore;
  let dispose: () => Promise<void>;
  let van: number;
  let car: number;
  let vanSource: number;
  let carSource: number;
  beforeEach(async () => {
    ({ data, dispose } = await engine.open());
    const ann = await data.users.create({ login: 'ann@example.com', passwordHash: 'x', now: 0 });
    van = await data.trackers.add({ userId: ann, deviceId: 'van', protocol: 'fsm_app', label: 'Van', tariffId: 1, now: 0 });
    car = await data.trackers.add({ userId: ann, deviceId: 'car', protocol: 'fsm_app', label: 'Car', tariffId: 1, now: 0 });
    vanSource = (await data.trackers.get(ann, van))!.source_id;
    carSource = (await data.trackers.get(ann, car))!.source_id;
  });
  afterEach(async () => dispose?.());

  it('keeps outgoing messages pending until delivered, once; incoming ones arrive delivered and unread', async () => {
    const out = await data.chat.addOutgoing(van, vanSource, 'Go to depot', 1000);
    const inc = await data.chat.addIncoming(van, vanSource, 'On my way', 1500, 7);
    const anon = await data.chat.addIncoming(van, vanSource, 'Done', 1600, null);
    expect(await data.chat.get(out)).toEqual({
      id: out, tracker_id: van, source_id: vanSource, type: 'OUTGOING', status: 'PENDING', text: 'Go to depot', submit_time: 1000, update_time: null, employee_id: null, is_read: 1,
    } satisfies ChatRow);
    expect(await data.chat.get(inc)).toEqual({
      id: inc, tracker_id: van, source_id: vanSource, type: 'INCOMING', status: 'DELIVERED', text: 'On my way', submit_time: 1500, update_time: 1500, employee_id: 7, is_read: 0,
    } satisfies ChatRow);
    expect((await data.chat.get(anon))?.employee_id).toBeNull();
    expect(await data.chat.get(999999)).toBeUndefined();
    const second = await data.chat.addOutgoing(van, vanSource, 'And back', 1100);
    await data.chat.addOutgoing(car, carSource, 'Other device', 1100);
    expect((await data.chat.pending(vanSource)).map((m) => m.id)).toEqual([out, second]);
    await data.chat.delivered(out, 2000);
    await data.chat.delivered(out, 3000);
    await data.chat.delivered(inc, 3000);
    expect(await data.chat.get(out)).toMatchObject({ status: 'DELIVERED', update_time: 2000 });
    expect((await data.chat.get(inc))?.update_time).toBe(1500);
    expect((await data.chat.pending(vanSource)).map((m) => m.id)).toEqual([second]);
    expect(await data.chat.pending(999999)).toEqual([]);
  });

  it('lists a tracker\'s messages in a time range, either way, ties by id, up to a limit', async () => {
    const m1 = await data.chat.addOutgoing(van, vanSource, 'a', 100);
    const m2 = await data.chat.addIncoming(van, vanSource, 'b', 200, null);
    const m3 = await data.chat.addOutgoing(van, vanSource, 'c', 200);
    const m4 = await data.chat.addIncoming(van, vanSource, 'd', 300, null);
    await data.chat.addOutgoing(car, carSource, 'e', 200);
    const ids = async (from: number, to: number, limit: number, asc: boolean) => (await data.chat.list(van, from, to, limit, asc)).map((m) => m.id);
    expect(await ids(0, 1000, 10, true)).toEqual([m1, m2, m3, m4]);
    expect(await ids(0, 1000, 10, false)).toEqual([m4, m3, m2, m1]);
    expect(await ids(200, 300, 10, true)).toEqual([m2, m3, m4]);
    expect(await ids(100, 200, 2, false)).toEqual([m3, m2]);
    expect(await ids(0, 1000, 0, true)).toEqual([]);
    expect(await ids(0, 1000, -1, true)).toEqual([m1, m2, m3, m4]);
    expect(await ids(301, 1000, 10, true)).toEqual([]);
    expect((await data.chat.list(van, 300, 300, 1, true))[0]).toEqual(await data.chat.get(m4));
  });

  it('counts unread incoming messages, marks them read by id or by tracker, and knows the last message\'s time', async () => {
    expect(await data.chat.lastTime(van)).toBeNull();
    expect(await data.chat.unread(van)).toBe(0);
    const a = await data.chat.addIncoming(van, vanSource, 'a', 100, null);
    const b = await data.chat.addIncoming(van, vanSource, 'b', 300, null);
    await data.chat.addOutgoing(van, vanSource, 'c', 200);
    const c = await data.chat.addIncoming(car, carSource, 'c', 50, null);
    expect(await data.chat.unread(van)).toBe(2);
    expect(await data.chat.lastTime(van)).toBe(300);
    expect(await data.chat.lastTime(car)).toBe(50);
    await data.chat.markRead([]);
    await data.chat.markRead([a, 999999]);
    expect(await data.chat.unread(van)).toBe(1);
    expect((await data.chat.get(a))?.is_read).toBe(1);
    await data.chat.markTrackersRead([]);
    expect(await data.chat.unread(van)).toBe(1);
    await data.chat.markTrackersRead([van]);
    expect([await data.chat.unread(van), (await data.chat.get(b))?.is_read, await data.chat.unread(car)]).toEqual([0, 1, 1]);
    await data.chat.markTrackersRead([car, van]);
    expect((await data.chat.get(c))?.is_read).toBe(1);
  });
});
