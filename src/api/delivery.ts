/**
 * Delivery tracking (spec: Delivery info; Delivery, base path /delivery; Authentication — the
 * DELIVERY session type) and the calls that manage a master's delivery session (ours,
 * user/session/delivery/*). Decisions for what the spec leaves open are in docs/delivery.md.
 */
import { z } from 'zod';
import { deliverySession, findDeliveries, findDelivery, readDeliverySession, revokeDeliverySession, type Delivery } from '../delivery/delivery.ts';
import { loadTaskViews } from '../tasks/view.ts';
import { MAX_EXTERNAL_ID } from '../tasks/input.ts';
import type { UserRow } from '../store/users.ts';
import { defineCall, type Services } from './kernel.ts';
import { trackerView } from './tracker.ts';
import { tariffRestrictions } from './user.ts';

/** The spec documents an int; tasks store text: a string or an integer, compared as text. */
const externalId = z.union([z.string().min(1, 'must not be empty').max(MAX_EXTERNAL_ID), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)]).transform(String);

const deps = (services: Services) => ({ store: services.store, now: services.now(), sessionTtlMs: services.config.auth.sessionTtlDays * 86_400_000 });

async function views(services: Services, found: Delivery[], tz: string): Promise<Array<Record<string, unknown>>> {
  const tasks = await loadTaskViews(services.store.data, found.map((d) => d.task), tz);
  return found.map((d, i) => ({
    task: tasks[i],
    tracker: d.tracker ? trackerView(d.tracker, tz) : null,
    first_name: d.employee?.first_name ?? null,
    middle_name: d.employee?.middle_name ?? null,
    last_name: d.employee?.last_name ?? null,
    vehicle_label: d.vehicleLabel,
    estimated_time: d.estimatedTime,
  }));
}

const restrictions = async (services: Services, owner: UserRow) => tariffRestrictions((await services.store.data.tariffs.get(owner.tariff_id))!);

const read = defineCall({
  path: 'delivery/read',
  summary: 'The current task (else checkpoint) with this external id: task, tracker, employee names, vehicle label, estimated time in seconds.',
  access: 'delivery',
  params: z.object({ external_id: externalId }),
  async handler({ services, owner, user, params }) {
    const found = findDelivery(deps(services), owner.id, params.external_id);
    return { user_id: owner.id, ...(await views(services, [found], user.time_zone))[0], restrictions: await restrictions(services, owner) };
  },
});

const list = defineCall({
  path: 'delivery/list',
  summary: 'Every current task and checkpoint with this external id, tasks first.',
  access: 'delivery',
  params: z.object({ external_id: externalId }),
  async handler({ services, owner, user, params }) {
    const found = findDeliveries(deps(services), owner.id, params.external_id);
    return { list: await views(services, found, user.time_zone), user_id: owner.id, restrictions: await restrictions(services, owner) };
  },
});

const sessionCreate = defineCall({
  path: 'user/session/delivery/create',
  summary: 'The DELIVERY session hash of the master user (`value`): the existing one, or a new one.',
  right: 'admin',
  params: z.object({}),
  handler({ services, user }) {
    return { value: deliverySession(deps(services), user.id) };
  },
});

const sessionRead = defineCall({
  path: 'user/session/delivery/read',
  summary: 'The DELIVERY session hash of the master user (`value`); 201 when it has none.',
  right: 'admin',
  params: z.object({}),
  handler({ services, user }) {
    return { value: readDeliverySession(deps(services), user.id) };
  },
});

const sessionRevoke = defineCall({
  path: 'user/session/delivery/revoke',
  summary: 'Delete the DELIVERY session of the master user (ours); 201 when it has none.',
  right: 'admin',
  params: z.object({}),
  handler({ services, user }) {
    revokeDeliverySession(deps(services), user.id);
  },
});

export const deliveryCalls = [read, list, sessionCreate, sessionRead, sessionRevoke];
