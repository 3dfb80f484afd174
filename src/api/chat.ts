/** Chat with trackers (spec: Chat, base path /tracker/chat). Delivery: the gateway's (src/gateway/chat.ts), reached through Services.chat. */
import { z } from 'zod';
import type { ChatRow } from '../store/chat.ts';
import type { TrackerRow } from '../store/trackers.ts';
import type { UserRow } from '../store/users.ts';
import { formatDateTime, parseDateTime } from '../core/time.ts';
import { DomainError, invalidParams } from '../core/errors.ts';
import { defineCall, type Services } from './kernel.ts';
import { hasApp } from '../fieldapp/activation.ts';
import { id } from './schemas.ts';

const MAX_TEXT = 20_000;
const MAX_TRACKERS = 300;
const MAX_LIST = 1024;
const message = z.string().max(MAX_TEXT);
const trackerList = z.array(id).max(MAX_TRACKERS);

function view(m: ChatRow, tz: string) {
  return {
    id: m.id,
    submit_time: formatDateTime(m.submit_time, tz),
    update_time: m.update_time === null ? null : formatDateTime(m.update_time, tz),
    text: m.text,
    type: m.type,
    status: m.status,
    employee_id: m.employee_id,
  };
}

/** A tracker the user may chat with: owned (201), not blocked (208), text-capable (214), chat in its tariff (236). */
async function chatTracker(services: Services, owner: UserRow, trackerId: number): Promise<TrackerRow> {
  const data = services.store.data;
  const t = await data.trackers.get(owner.id, trackerId);
  if (!t) throw new DomainError(201, {}, `Not found in the database: tracker ${trackerId}`);
  if (t.blocked) throw new DomainError(208);
  if (!services.chat.carriesText(t.protocol) && !(await hasApp(data, t.id))) throw new DomainError(214, {}, `Operation not supported by the device: ${t.protocol} devices take no text messages`);
  if (!(await data.tariffs.get(t.tariff_id))?.has_chat) throw new DomainError(236);
  return t;
}

/** The ids among `ids` that are not the owner's trackers, in order. */
async function missingTrackers(services: Services, owner: UserRow, ids: number[]): Promise<number[]> {
  const missing: number[] = [];
  for (const tid of ids) if (!(await services.store.data.trackers.get(owner.id, tid))) missing.push(tid);
  return missing;
}

function time(v: string | undefined, tz: string, parameter: string, fallback: number): number {
  if (v === undefined) return fallback;
  const ms = parseDateTime(v, tz);
  if (ms === undefined) throw invalidParams([{ parameter, error: 'expected yyyy-MM-dd HH:mm:ss' }]);
  return ms;
}

const list = defineCall({
  path: 'tracker/chat/list',
  summary: 'Messages of a tracker in a period (default: the last 7 days), oldest first unless ascending=false.',
  params: z.object({ tracker_id: id, from: z.string().optional(), to: z.string().optional(), limit: z.number().int().min(1).max(MAX_LIST).default(MAX_LIST), ascending: z.boolean().default(true) }),
  async handler({ services, owner, user, params }) {
    const t = await chatTracker(services, owner, params.tracker_id);
    const now = services.now();
    const to = time(params.to, user.time_zone, 'to', now);
    const from = time(params.from, user.time_zone, 'from', to - 7 * 86_400_000);
    if (to < from) throw invalidParams([{ parameter: 'to', error: 'must not be before from' }]);
    return { list: (await services.store.data.chat.list(t.id, from, to, params.limit, params.ascending)).map((m) => view(m, user.time_zone)) };
  },
});

const send = defineCall({
  path: 'tracker/chat/send',
  summary: 'Send a text message to a tracker; PENDING until delivered to the device, which happens when it is connected.',
  params: z.object({ tracker_id: id, message }),
  async handler({ services, owner, params }) {
    const t = await chatTracker(services, owner, params.tracker_id);
    const msgId = await services.store.data.chat.addOutgoing(t.id, t.source_id, params.message, services.now());
    void services.chat.flush(t.source_id);
    return { id: msgId };
  },
});

const broadcast = defineCall({
  path: 'tracker/chat/broadcast',
  summary: 'Send one message to many trackers: sent_to lists those that can take it, not_sent_to the others.',
  params: z.object({ trackers: trackerList, message }),
  async handler({ services, owner, params }) {
    const data = services.store.data;
    const sent: number[] = [];
    const notSent: number[] = [];
    const missing = await missingTrackers(services, owner, params.trackers);
    if (missing.length) throw new DomainError(217, { ids: missing }, `List contains non-existent entities: trackers ${missing.join(', ')}`);
    for (const tid of params.trackers) {
      try {
        const t = await chatTracker(services, owner, tid);
        await data.chat.addOutgoing(t.id, t.source_id, params.message, services.now());
        void services.chat.flush(t.source_id);
        sent.push(tid);
      } catch {
        notSent.push(tid);
      }
    }
    return { sent_to: sent, not_sent_to: notSent };
  },
});

const markReadAll = defineCall({
  path: 'tracker/chat/mark_read_all',
  summary: 'Mark every incoming message of the trackers (default: all of the user\'s) read.',
  params: z.object({ trackers: z.array(id).max(10_000).optional() }),
  async handler({ services, owner, params }) {
    const data = services.store.data;
    const own = (await data.trackers.list(owner.id)).map((t) => t.id);
    const ids = params.trackers ?? own;
    const missing = ids.filter((t) => !own.includes(t));
    if (missing.length) throw new DomainError(201, {}, `Not found in the database: trackers ${missing.join(', ')}`);
    await data.chat.markTrackersRead(ids);
  },
});

const markRead = defineCall({
  path: 'tracker/chat/mark_read',
  summary: 'Mark messages read: message_id or message_ids (use only one).',
  params: z.object({ message_id: id.optional(), message_ids: z.array(id).max(10_000).optional() }),
  async handler({ services, owner, params }) {
    const data = services.store.data;
    if ((params.message_id === undefined) === (params.message_ids === undefined)) throw invalidParams([{ parameter: 'message_id', error: 'pass either message_id or message_ids' }]);
    const ids = params.message_ids ?? [params.message_id!];
    for (const mid of ids) {
      const m = await data.chat.get(mid);
      if (!m || !(await data.trackers.get(owner.id, m.tracker_id))) throw new DomainError(201, {}, `Not found in the database: message ${mid}`);
    }
    await data.chat.markRead(ids);
  },
});

const updatedList = defineCall({
  path: 'tracker/chat/updated/list',
  summary: 'For each tracker, the time of its last message.',
  params: z.object({ trackers: trackerList }),
  async handler({ services, owner, user, params }) {
    const missing = await missingTrackers(services, owner, params.trackers);
    if (missing.length) throw new DomainError(217, { ids: missing }, `List contains non-existent entities: trackers ${missing.join(', ')}`);
    const value: Record<string, string | null> = {};
    for (const tid of params.trackers) {
      const t = await services.store.data.chat.lastTime(tid);
      value[tid] = t === null ? null : formatDateTime(t, user.time_zone);
    }
    return { value };
  },
});

const unreadCount = defineCall({
  path: 'tracker/chat/unread/count',
  summary: 'For each tracker that can chat, the number of unread incoming messages.',
  params: z.object({}),
  async handler({ services, owner }) {
    const data = services.store.data;
    const value: Record<string, number> = {};
    for (const t of await data.trackers.list(owner.id)) {
      if (!services.chat.carriesText(t.protocol) && !(await hasApp(data, t.id))) continue;
      value[t.id] = await data.chat.unread(t.id);
    }
    return { value };
  },
});

export const chatCalls = [list, send, broadcast, markReadAll, markRead, updatedList, unreadCount];
