/**
 * Retranslators (issue 13; spec: Retranslator and retranslator protocol, Retranslators base path
 * /retranslator): create|update|delete|list and protocol/list as the spec; the status in list items
 * and the tracker bindings tracker/retranslator/bind|unbind|list are ours. retranslator/update names
 * the retranslator by the `id` inside the object. Rules in src/forwarding/retranslators.ts, the
 * whole design in docs/retranslators.md.
 */
import { z } from 'zod';
import { formatDateTime } from '../core/time.ts';
import { FORWARD_PROTOCOLS } from '../forwarding/protocols/index.ts';
import { bindTracker, createRetranslator, deleteRetranslator, ownRetranslator, unbindTracker, updateRetranslator } from '../forwarding/retranslators.ts';
import type { RetranslatorRow } from '../store/retranslators.ts';
import { defineCall, type Services } from './kernel.ts';
import { id } from './schemas.ts';
import { ownTracker } from './tracker.ts';

const fields = {
  name: z.string().trim().min(1).max(100),
  protocol_id: id,
  address: z.string().trim().min(1).max(2048),
  port: z.number().int().min(1).max(65535).optional(),
  login: z.string().max(256).optional(),
  password: z.string().max(256).optional(),
  enabled: z.boolean().default(true),
};

/** After a change the engine applies it before the call answers (disable, edit, delete take effect at once). */
const applied = async (services: Services) => void (await services.forwarding?.changed());

function view(services: Services, r: RetranslatorRow, tz: string) {
  const s = services.forwarding?.status(r.id);
  const lastForwarded = s?.lastForwarded ?? r.last_forwarded;
  return {
    id: r.id,
    name: r.name,
    protocol_id: r.protocol_id,
    address: r.address,
    port: r.port,
    login: r.login,
    // the password is not answered (write-only): has_password says whether one is set
    has_password: r.password !== '',
    enabled: !!r.enabled,
    status: {
      connected: !!s?.connected,
      last_error: s?.lastError ?? null,
      last_error_time: s?.lastErrorTime ? formatDateTime(s.lastErrorTime, tz) : null,
      backlog: s?.backlog ?? 0,
      last_forwarded: lastForwarded === null ? null : formatDateTime(lastForwarded, tz),
    },
  };
}

const create = defineCall({
  path: 'retranslator/create',
  summary: 'Create a retranslator; answers its id. 247 for the same address, port and login; 7 when a login or password the protocol requires is empty; 268 over the tariff quota.',
  right: 'admin',
  params: z.object({ retranslator: z.object(fields) }),
  async handler({ services, owner, params }) {
    const newId = createRetranslator(services.store, owner, params.retranslator);
    await applied(services);
    return { id: newId };
  },
});

const update = defineCall({
  path: 'retranslator/update',
  summary: 'Change the retranslator named by `retranslator.id` (every member as in create; a password left out keeps the stored one). 201, 247.',
  right: 'admin',
  params: z.object({ retranslator: z.object({ id, ...fields }) }),
  async handler({ services, owner, params: { retranslator: r } }) {
    const stored = ownRetranslator(services.store, owner.id, r.id);
    updateRetranslator(services.store, owner.id, r.id, { ...r, password: r.password ?? stored.password });
    await applied(services);
  },
});

const remove = defineCall({
  path: 'retranslator/delete',
  summary: 'Delete a retranslator with its bindings and cursors; forwarding stops at once. 201.',
  right: 'admin',
  params: z.object({ retranslator_id: id }),
  async handler({ services, owner, params }) {
    deleteRetranslator(services.store, owner.id, params.retranslator_id);
    await applied(services);
  },
});

const list = defineCall({
  path: 'retranslator/list',
  summary: "The user's retranslators, each with its forwarding status (connected, last_error, backlog, last_forwarded).",
  params: z.object({}),
  async handler({ services, owner, user }) {
    return { list: (await services.store.data.retranslators.list(owner.id)).map((r) => view(services, r, user.time_zone)) };
  },
});

const protocolList = defineCall({
  path: 'retranslator/protocol/list',
  summary: 'The wire formats a retranslator can forward in, one entry per format and version.',
  params: z.object({}),
  handler() {
    return {
      list: FORWARD_PROTOCOLS.map((p) => ({
        id: p.id,
        name: p.name,
        has_login: p.hasLogin,
        has_password: p.hasPassword,
        required_login: p.requiredLogin,
        required_password: p.requiredPassword,
        ...(p.fakeDeviceIdPattern ? { fake_device_id_pattern: p.fakeDeviceIdPattern } : {}),
        ...(p.loginPattern ? { login_pattern: p.loginPattern } : {}),
        address_is_url: !!p.url,
        default_port: p.defaultPort,
      })),
    };
  },
});

const bind = defineCall({
  path: 'tracker/retranslator/bind',
  summary: "Forward a tracker's fixes that arrive from now on through a retranslator, under its device id or `fake_device_id` (242 when it does not match the protocol's pattern). Binding again changes the fake id and keeps the cursor.",
  right: 'admin',
  params: z.object({ tracker_id: id, retranslator_id: id, fake_device_id: z.string().min(1).max(64).nullable().optional() }),
  async handler({ services, owner, params }) {
    const t = await ownTracker(services, owner, params.tracker_id);
    bindTracker(services.store, owner.id, params.retranslator_id, t, params.fake_device_id ?? null, services.now());
    await applied(services);
  },
});

const unbind = defineCall({
  path: 'tracker/retranslator/unbind',
  summary: 'Stop forwarding a tracker through a retranslator (its cursor is dropped). 201.',
  right: 'admin',
  params: z.object({ tracker_id: id, retranslator_id: id }),
  async handler({ services, owner, params }) {
    await ownTracker(services, owner, params.tracker_id);
    unbindTracker(services.store, owner.id, params.retranslator_id, params.tracker_id);
    await applied(services);
  },
});

const bindings = defineCall({
  path: 'tracker/retranslator/list',
  summary: "The user's bindings, optionally of one tracker or one retranslator: {tracker_id, retranslator_id, fake_device_id, bound}.",
  params: z.object({ tracker_id: id.optional(), retranslator_id: id.optional() }),
  async handler({ services, owner, user, params }) {
    if (params.tracker_id !== undefined) await ownTracker(services, owner, params.tracker_id);
    if (params.retranslator_id !== undefined) ownRetranslator(services.store, owner.id, params.retranslator_id);
    const rows = (await services.store.data.retranslators.userBindings(owner.id)).filter((b) => (params.tracker_id === undefined || b.tracker_id === params.tracker_id) && (params.retranslator_id === undefined || b.retranslator_id === params.retranslator_id));
    return { list: rows.map((b) => ({ tracker_id: b.tracker_id, retranslator_id: b.retranslator_id, fake_device_id: b.fake_device_id, bound: formatDateTime(b.bound, user.time_zone) })) };
  },
});

export const retranslatorCalls = [create, update, remove, list, protocolList, bind, unbind, bindings];
