/**
 * The rules of retranslators and their tracker bindings (issue 13, docs/retranslators.md), shared by
 * the API and the admin command: protocol checks (7), same target (247), the tariff's quota (268),
 * fake device ids (242). Domain code over the store; the caller passes { store } and the owner.
 * Still on the synchronous store (issue 24) while src/api/retranslator.ts calls it synchronously.
 */
import { DomainError, invalidParams } from '../core/errors.ts';
import type { Store } from '../store/index.ts';
import type { RetranslatorFields, RetranslatorRow } from '../store/retranslators.ts';
import type { TrackerRow } from '../store/trackers.ts';
import { forwardProtocol } from './protocols/index.ts';
import type { ForwardProtocol } from './types.ts';

/** A retranslator as the API gives it: port may be left out where the address is a URL. */
export interface RetranslatorInput {
  name: string;
  protocol_id: number;
  address: string;
  port?: number;
  login?: string;
  password?: string;
  enabled: boolean;
}

/** The effective port of an http(s) URL. */
const urlPort = (u: URL) => (u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80);

export function parseUrl(address: string): URL | undefined {
  try {
    const u = new URL(address);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : undefined;
  } catch {
    return undefined;
  }
}

/** Input -> stored fields: 7 naming the member at fault. */
export function checkInput(r: RetranslatorInput, path = 'retranslator'): { fields: RetranslatorFields; protocol: ForwardProtocol } {
  const protocol = forwardProtocol(r.protocol_id);
  if (!protocol) throw invalidParams([{ parameter: `${path}.protocol_id`, error: 'no such protocol (see retranslator/protocol/list)' }]);
  let port = r.port;
  if (protocol.url) {
    const u = parseUrl(r.address);
    if (!u) throw invalidParams([{ parameter: `${path}.address`, error: `${protocol.name} takes a full URL: http(s)://host:port/path` }]);
    if (port !== undefined && port !== urlPort(u)) throw invalidParams([{ parameter: `${path}.port`, error: `must be the URL's port ${urlPort(u)} (or left out)` }]);
    port = urlPort(u);
  } else {
    if (!/^[A-Za-z0-9.:[\]_-]{1,253}$/.test(r.address)) throw invalidParams([{ parameter: `${path}.address`, error: 'a host name or an IP address' }]);
    if (port === undefined) throw invalidParams([{ parameter: `${path}.port`, error: 'required' }]);
  }
  const login = protocol.hasLogin ? (r.login ?? '') : '';
  const password = protocol.hasPassword ? (r.password ?? '') : '';
  // spec: 7 when a login or password the protocol requires is empty
  if (protocol.requiredLogin && !login) throw invalidParams([{ parameter: `${path}.login`, error: `${protocol.name} requires a login` }]);
  if (protocol.requiredPassword && !password) throw invalidParams([{ parameter: `${path}.password`, error: `${protocol.name} requires a password` }]);
  if (login && protocol.loginPattern && !new RegExp(protocol.loginPattern).test(login)) throw invalidParams([{ parameter: `${path}.login`, error: `${protocol.name} takes a login matching ${protocol.loginPattern}` }]);
  return { protocol, fields: { name: r.name, protocolId: protocol.id, address: r.address, port, login, password, enabled: r.enabled } };
}

export function ownRetranslator(store: Store, userId: number, id: number): RetranslatorRow {
  const r = store.retranslators.get(userId, id);
  if (!r) throw new DomainError(201, {}, `Not found in the database: retranslator ${id}`);
  return r;
}

function sameTarget(store: Store, userId: number, f: RetranslatorFields, exceptId = 0): void {
  const other = store.retranslators.sameTarget(userId, f.address, f.port, f.login, exceptId);
  if (other !== undefined) throw new DomainError(247, {}, `Entity already exists: retranslator ${other} sends to the same address, port and login`);
}

/**
 * The identity forwarded must fit the protocol (242): the fake id, else the tracker's device id (an
 * EGTS object id is a 32-bit number, so a tracker known by its IMEI needs a numeric fake id there).
 */
function checkFakeId(protocol: ForwardProtocol, fakeId: string | null, deviceId: string, trackerId: number): void {
  const pattern = protocol.fakeDeviceIdPattern ?? '^.{1,64}$';
  if (fakeId !== null && !new RegExp(pattern).test(fakeId)) throw new DomainError(242, { pattern }, `Validation error: fake device id of tracker ${trackerId} does not match ${pattern} (${protocol.name})`);
  if (fakeId === null && protocol.fakeDeviceIdPattern && !new RegExp(pattern).test(deviceId)) throw new DomainError(242, { pattern }, `Validation error: the device id of tracker ${trackerId} does not match ${pattern} (${protocol.name}): give a fake device id that does`);
}

export function createRetranslator(store: Store, owner: { id: number; tariff_id: number }, input: RetranslatorInput): number {
  const { fields } = checkInput(input);
  return store.transaction(() => {
    const max = store.tariffs.get(owner.tariff_id)?.max_retranslators ?? 0;
    const n = store.retranslators.count(owner.id);
    if (n >= max) throw new DomainError(268, { limit: max }, `Over quota: the tariff allows ${max} retranslators, ${n} exist`);
    sameTarget(store, owner.id, fields);
    return store.retranslators.create(owner.id, fields);
  });
}

/** The retranslator to change is the one named by `id` inside the object. */
export function updateRetranslator(store: Store, userId: number, id: number, input: RetranslatorInput): void {
  const { fields, protocol } = checkInput(input);
  store.transaction(() => {
    ownRetranslator(store, userId, id);
    sameTarget(store, userId, fields, id);
    for (const b of store.retranslators.bindings(id)) checkFakeId(protocol, b.fake_device_id, b.device_id, b.tracker_id);
    store.retranslators.update(userId, id, fields);
  });
}

export function deleteRetranslator(store: Store, userId: number, id: number): void {
  if (!store.retranslators.delete(userId, id)) throw new DomainError(201, {}, `Not found in the database: retranslator ${id}`);
}

export function bindTracker(store: Store, userId: number, retranslatorId: number, tracker: TrackerRow, fakeDeviceId: string | null, now: number): void {
  const r = ownRetranslator(store, userId, retranslatorId);
  const protocol = forwardProtocol(r.protocol_id)!;
  checkFakeId(protocol, fakeDeviceId, tracker.device_id, tracker.id);
  store.retranslators.bind(r.id, tracker.id, tracker.source_id, fakeDeviceId, now);
}

export function unbindTracker(store: Store, userId: number, retranslatorId: number, trackerId: number): void {
  ownRetranslator(store, userId, retranslatorId);
  if (!store.retranslators.unbind(retranslatorId, trackerId)) throw new DomainError(201, {}, `Not found in the database: tracker ${trackerId} is not bound to retranslator ${retranslatorId}`);
}
