/**
 * The field app's API (ours, issue 11; docs/field-app.md): the calls of the mobile app an employee
 * carries (`app/*`, authenticated by the device token, access 'device'), and the operator's calls
 * that activate and revoke it (`tracker/app/*`, user sessions). The rules live in src/fieldapp.
 */
import { idempotencyKey, once } from './app-once.ts';
import { z } from 'zod';
import { formatDateTime, parseDateTime } from '../core/time.ts';
import { DomainError, invalidParams } from '../core/errors.ts';
import { activate, createActivationCode, formatCode } from '../fieldapp/activation.ts';
import { taskChanges, type FeedPage } from '../fieldapp/feed.ts';
import { beginLoginAttempt } from '../auth/attempts.ts';
import { changeStatus, requireStatusFeature } from '../statuses/statuses.ts';
import { taskViews } from '../tasks/view.ts';
import { formView } from '../forms/view.ts';
import type { ChatRow } from '../store/chat.ts';
import type { TrackerRow } from '../store/trackers.ts';
import { defineCall, type AppFix, type Services } from './kernel.ts';
import { id } from './schemas.ts';
import { ownTracker, trackerView } from './tracker.ts';
import { changeView } from './status.ts';
import { watchHub } from './app-watch.ts';

/** Most characters of a chat message (as tracker/chat/send). */
const MAX_TEXT = 20_000;
const MAX_CHAT_LIST = 1024;
const cursor = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** One page of the task feed as app/task/list answers it (and app/task/watch pushes it). */
export function pageView(services: Services, page: FeedPage, tz: string): Record<string, unknown> {
  const forms = services.store.forms;
  const list = taskViews(services.store, page.tasks, tz).map((v, i) => {
    const form = page.tasks[i].type === 'route' ? undefined : forms.ofTask(page.tasks[i].id);
    return { ...v, form: form ? formView(form, tz) : null };
  });
  return { list, removed: page.removed, cursor: page.cursor, reset: page.reset, more: page.more };
}

// ---- the operator's calls (user sessions)

const activationCreate = defineCall({
  path: 'tracker/app/activation/create',
  summary: 'A one-time activation code for the field app on this tracker (osmand, not a clone, not blocked); replaces an unused older code. Valid 24 hours.',
  right: 'tracker_update',
  params: z.object({ tracker_id: id }),
  async handler({ services, owner, user, params }) {
    const t = await ownTracker(services, owner, params.tracker_id);
    const c = createActivationCode(services.store, t, services.now());
    return { code: formatCode(c.code), expires: formatDateTime(c.expires, user.time_zone) };
  },
});

const appRead = defineCall({
  path: 'tracker/app/read',
  summary: "The tracker's field app: the unused activation code's expiry (null: none) and the activated devices (token ids, labels, last use).",
  params: z.object({ tracker_id: id }),
  async handler({ services, owner, user, params }) {
    const t = await ownTracker(services, owner, params.tracker_id);
    const tz = user.time_zone;
    const code = services.store.fieldApp.codeOf(t.id);
    return {
      activation: code && code.expires > services.now() ? { expires: formatDateTime(code.expires, tz) } : null,
      devices: services.store.fieldApp.tokens(t.id).map((d) => ({ id: d.id, label: d.label, created: formatDateTime(d.created, tz), last_used: formatDateTime(d.last_used, tz) })),
    };
  },
});

const appRevoke = defineCall({
  path: 'tracker/app/revoke',
  summary: "Revoke one device token of the tracker (token_id), or all of them and the unused code; the app's calls then answer 4 and its watches close.",
  right: 'tracker_update',
  params: z.object({ tracker_id: id, token_id: id.optional() }),
  async handler({ services, owner, params }) {
    const t = await ownTracker(services, owner, params.tracker_id);
    const n = services.store.fieldApp.revoke(t.id, params.token_id);
    if (params.token_id !== undefined && !n) throw new DomainError(201, {}, `Not found in the database: device token ${params.token_id} of tracker ${t.id}`);
    return { revoked: n };
  },
});

// ---- the app's calls (device token)

const appActivate = defineCall({
  path: 'app/activate',
  summary: 'Exchange a one-time activation code for a device token (answered once). 102 for a wrong, used or expired code; 105 after too many wrong codes from one address.',
  access: 'public',
  params: z.object({ code: z.string().max(32), label: z.string().trim().max(200).default('') }),
  async handler({ services, params, request, reply }) {
    const { store, config, now } = services;
    const t0 = now();
    const limits = { loginMaxFailures: config.auth.loginMaxFailures, addressMaxFailures: config.auth.addressMaxFailures, windowMinutes: config.auth.failureWindowMinutes };
    let attempt;
    try {
      // Both keys per address: wrong codes from one phone never lock out the others.
      attempt = beginLoginAttempt(store.sessions, limits, `app-activation:${request.ip}`, request.ip, t0);
    } catch (e) {
      if (e instanceof DomainError && typeof e.extra.retry_at === 'string') reply.header('retry-after', String(Math.ceil((Date.parse(e.extra.retry_at) - t0) / 1000)));
      throw e;
    }
    const { token, tracker } = await activate(store.data, params.code, params.label, t0);
    attempt.succeeded();
    // The configured port; null when the listener is off or on an ephemeral port (tests).
    const port = config.protocolPorts.osmand || null;
    return { token, tracker_id: tracker.id, label: tracker.label, positions: { protocol: 'osmand', device_id: tracker.device_id, port } };
  },
});

const appSelf = defineCall({
  path: 'app/read',
  summary: "The app's tracker (the spec's tracker object), its employee's names and the owner's time zone (the app's times are in it).",
  access: 'device',
  params: z.object({}),
  handler({ services, device, user }) {
    const e = services.store.employees.byTracker(device.tracker.id);
    return {
      tracker: trackerView(device.tracker, user.time_zone),
      employee: e ? { id: e.id, first_name: e.first_name, middle_name: e.middle_name, last_name: e.last_name } : null,
      time_zone: user.time_zone,
    };
  },
});

const taskList = defineCall({
  path: 'app/task/list',
  summary: "The tracker's tasks that changed after `cursor` (deleted or reassigned ones in `removed`); without a cursor every current task (`reset`: true). Answers the next cursor.",
  access: 'device',
  params: z.object({ cursor: cursor.optional() }),
  handler({ services, device, user, params }) {
    watchHub(services)?.maybePrune();
    return pageView(services, taskChanges(services.store, device.tracker.id, params.cursor, services.now()), user.time_zone);
  },
});

const taskWatch = defineCall({
  path: 'app/task/watch',
  summary: 'Server-sent events: `tasks` events with the same members as app/task/list, first the changes after `cursor` (or Last-Event-ID), then each change as it happens; heartbeat comments; `revoked` and `replaced` before closing.',
  access: 'device',
  params: z.object({ cursor: cursor.optional() }),
  handler({ services, device, user, params, request, reply }) {
    const hub = watchHub(services);
    if (!hub) throw new DomainError(1);
    let from = params.cursor;
    const last = request.headers['last-event-id'];
    if (from === undefined && typeof last === 'string' && last !== '') {
      if (!/^\d{1,15}$/.test(last)) throw invalidParams([{ parameter: 'Last-Event-ID', error: 'must be a cursor (a whole number)' }]);
      from = Number(last);
    }
    hub.open(reply, device, from, user.time_zone, (page, tz) => pageView(services, page, tz));
  },
});

// ---- chat

function chatView(m: ChatRow, tz: string) {
  return { id: m.id, submit_time: formatDateTime(m.submit_time, tz), update_time: m.update_time === null ? null : formatDateTime(m.update_time, tz), text: m.text, type: m.type, status: m.status };
}

function requireChat(services: Services, t: TrackerRow): void {
  if (!services.store.tariffs.get(t.tariff_id)?.has_chat) throw new DomainError(236, {}, 'Feature unavailable due to tariff restrictions: chat');
}

const chatList = defineCall({
  path: 'app/chat/list',
  summary: "The tracker's chat in a period (default: the last 7 days), oldest first; the operator's messages in the answer become DELIVERED.",
  access: 'device',
  params: z.object({ from: z.string().optional(), to: z.string().optional(), limit: z.number().int().min(1).max(MAX_CHAT_LIST).default(MAX_CHAT_LIST) }),
  handler({ services, device, user, params }) {
    const t = device.tracker;
    requireChat(services, t);
    const tz = user.time_zone;
    const now = services.now();
    const time = (v: string | undefined, name: string, fallback: number) => {
      if (v === undefined) return fallback;
      const ms = parseDateTime(v, tz);
      if (ms === undefined) throw invalidParams([{ parameter: name, error: 'expected yyyy-MM-dd HH:mm:ss' }]);
      return ms;
    };
    const to = time(params.to, 'to', now);
    const from = time(params.from, 'from', to - 7 * 86_400_000);
    if (to < from) throw invalidParams([{ parameter: 'to', error: 'must not be before from' }]);
    const list = services.store.chat.list(t.id, from, to, params.limit, true);
    services.store.transaction(() => {
      for (const m of list) {
        if (m.type !== 'OUTGOING' || m.status !== 'PENDING') continue;
        services.store.chat.delivered(m.id, now);
        Object.assign(m, { status: 'DELIVERED', update_time: now });
      }
    });
    return { list: list.map((m) => chatView(m, tz)) };
  },
});

const chatSend = defineCall({
  path: 'app/chat/send',
  summary: "A message from the employee to the operators: an INCOMING message of the tracker (and of its clones), from the tracker's employee.",
  access: 'device',
  params: z.object({ message: z.string().trim().min(1).max(MAX_TEXT), idempotency_key: idempotencyKey }),
  handler: ({ services, device, params }) => once(services, device, 'app/chat/send', params.idempotency_key, () => {
    const t = device.tracker;
    requireChat(services, t);
    const now = services.now();
    const employee = services.store.employees.byTracker(t.id);
    let own = 0;
    services.store.transaction(() => {
      for (const over of services.store.trackers.bySource(t.source_id)) {
        const mid = services.store.chat.addIncoming(over.id, over.source_id, params.message, now, over.id === t.id ? (employee?.id ?? null) : null);
        if (over.id === t.id) own = mid;
      }
    });
    return { id: own };
  }),
});

// ---- positions

/** Most positions in one app/position/send (the app sends batches of up to 50). */
const MAX_POSITIONS = 100;
const position = z.object({
  time: z.string(),
  lat: z.number().min(-90).max(90),
  lng: z.number().min(-180).max(180),
  accuracy: z.number().min(0).max(100_000).optional(),
  speed: z.number().min(0).max(2_000).optional(),
  heading: z.number().min(0).max(360).optional(),
  altitude: z.number().min(-10_000).max(100_000).optional(),
});

const positionSend = defineCall({
  path: 'app/position/send',
  summary: "Positions of the app's phone (up to 100, times in the owner's zone, speed km/h, accuracy m), answered once committed; idempotency_key makes a resent batch count once.",
  access: 'device',
  params: z.object({ positions: z.array(position).min(1).max(MAX_POSITIONS), idempotency_key: idempotencyKey }),
  async handler({ services, device, user, params }) {
    const fixes: AppFix[] = params.positions.map((p, i) => {
      const time = parseDateTime(p.time, user.time_zone);
      if (time === undefined) throw invalidParams([{ parameter: `positions.${i}.time`, error: 'expected yyyy-MM-dd HH:mm:ss' }]);
      return { time, lat: p.lat, lng: p.lng, ...(p.speed === undefined ? {} : { speed: p.speed }), ...(p.heading === undefined ? {} : { course: p.heading }), ...(p.altitude === undefined ? {} : { altitude: p.altitude }), ...(p.accuracy === undefined ? {} : { precision: p.accuracy }) };
    });
    return once(services, device, 'app/position/send', params.idempotency_key, async () => {
      if (!services.fixes) throw new Error('no fix writer wired in');
      await services.fixes.store(device.tracker.source_id, fixes);
      return { count: fixes.length };
    });
  },
});

// ---- own status

async function statusTracker(services: Services, t: TrackerRow): Promise<TrackerRow> {
  await requireStatusFeature(services.store, t.tariff_id);
  return t;
}

const statusRead = defineCall({
  path: 'app/status/read',
  summary: "The tracker's status listing (its statuses in order, whether the employee may change them), current status and last change.",
  access: 'device',
  params: z.object({}),
  async handler({ services, device, user }) {
    const t = await statusTracker(services, device.tracker);
    const { statuses } = services.store;
    const l = t.status_listing_id === null ? undefined : statuses.listing(t.user_id, t.status_listing_id);
    const current = statuses.current(t.id);
    const sv = (s: { id: number; label: string; color: string }) => ({ id: s.id, label: s.label, color: s.color });
    return {
      listing: l ? { id: l.id, label: l.label, employee_controlled: !!l.employee_controlled, statuses: statuses.statuses(l.id).map(sv) } : null,
      current_status: current ? sv(current) : null,
      last_change: changeView(statuses.lastChange(t.id), user.time_zone),
    };
  },
});

const statusAssign = defineCall({
  path: 'app/status/assign',
  summary: "The employee sets the tracker's status (origin employee): 13 unless the listing is employee_controlled, 204 for a status not in it, 263 for the current one; idempotency_key makes a resend count once.",
  access: 'device',
  params: z.object({ new_status_id: id, idempotency_key: idempotencyKey }),
  handler: ({ services, device, user, params }) => once(services, device, 'app/status/assign', params.idempotency_key, async () => {
    const t = await statusTracker(services, device.tracker);
    return { last_change: changeView(await changeStatus({ store: services.store, now: services.now }, t, params.new_status_id, 'employee'), user.time_zone) };
  }),
});

export const appCalls = [activationCreate, appRead, appRevoke, appActivate, appSelf, taskList, taskWatch, chatList, chatSend, positionSend, statusRead, statusAssign];
