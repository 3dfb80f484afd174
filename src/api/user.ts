/** User calls (spec: User, base path /user; Authentication). */
import { z } from 'zod';
import { sendActivation } from '../accounts/accounts.ts';
import { beginLoginAttempt } from '../auth/attempts.ts';
import { checkPassword, dummyHash, PASSWORD_RULE } from '../auth/passwords.ts';
import type { TariffRow } from '../store/tariffs.ts';
import type { UserRow } from '../store/users.ts';
import { formatDateTime, isoDuration } from '../core/time.ts';
import { DomainError } from '../core/errors.ts';
import { defineCall, type Services } from './kernel.ts';
import { id } from './schemas.ts';

const auth = defineCall({
  path: 'user/auth',
  summary: 'Open a session: answers the session hash.',
  access: 'public',
  params: z.object({
    login: z.string().min(1).max(255),
    password: z.string().regex(PASSWORD_RULE, '1 to 40 printable characters'),
    dealer_id: id.optional(),
  }),
  async handler({ params, services, request, reply }) {
    const { store, config, now } = services;
    const t = now();
    const limits = { loginMaxFailures: config.auth.loginMaxFailures, addressMaxFailures: config.auth.addressMaxFailures, windowMinutes: config.auth.failureWindowMinutes };
    let attempt;
    try {
      attempt = beginLoginAttempt(store.sessions, limits, params.login, request.ip, t);
    } catch (e) {
      if (e instanceof DomainError && typeof e.extra.retry_at === 'string') reply.header('retry-after', String(Math.ceil((Date.parse(e.extra.retry_at) - t) / 1000)));
      throw e;
    }
    const user = await store.data.users.findByLogin(params.login);
    const ok = await checkPassword(user?.password_hash ?? (await dummyHash()), params.password);
    // A wrong password or dealer stays counted as a failure.
    if (!user || !ok || (params.dealer_id !== undefined && params.dealer_id !== user.dealer_id)) throw new DomainError(102);
    attempt.succeeded();
    if (await store.data.users.isDealerBlocked(user)) throw new DomainError(11);
    if (!user.activated) throw new DomainError(103);
    const ttl = config.auth.sessionTtlDays * 86_400_000;
    if ((await store.data.sessions.activeCount(user.id, 'user', t, ttl)) >= config.auth.maxSessionsPerUser) {
      throw new DomainError(104, {}, `Logins limit exceeded: at most ${config.auth.maxSessionsPerUser} sessions; reuse a session or log out of one`);
    }
    return { type: 'authenticated', hash: await store.data.sessions.create(user.id, 'user', t) };
  },
});

const logout = defineCall({
  path: 'user/logout',
  summary: 'Destroy the current session.',
  params: z.object({}),
  async handler({ services, session }) {
    await services.store.data.sessions.delete(session.hash);
  },
});

/** Features a tariff enables, as get_info lists them. */
function features(t: TariffRow): string[] {
  const f: string[] = [];
  if (t.has_reports) f.push('reports');
  if (t.has_tasks) f.push('tasks');
  if (t.has_chat) f.push('chat');
  if (t.has_statuses) f.push('statuses');
  return f;
}

export const tariffRestrictions = (t: TariffRow) => ({ allowed_maps: JSON.parse(t.allowed_maps) as string[] });

function userInfo(u: UserRow, tz: string) {
  const info: Record<string, unknown> = {
    id: u.id,
    login: u.login,
    title: u.title,
    phone: u.phone,
    creation_date: formatDateTime(u.creation_date, tz),
    balance: Math.round(u.balance * 100) / 100,
    bonus: Math.round(u.bonus * 100) / 100,
    locale: u.locale,
    demo: !!u.demo,
    verified: !!u.activated,
    legal_type: u.legal_type,
    default_geocoder: u.default_geocoder,
    route_provider: u.route_provider,
    time_zone: u.time_zone,
    measurement_system: u.measurement_system,
    tin: u.tin,
    post_country: u.post_country,
    post_region: u.post_region,
    post_index: u.post_index,
    post_city: u.post_city,
    post_street_address: u.post_street_address,
    registered_country: u.registered_country,
    registered_region: u.registered_region,
    registered_index: u.registered_index,
    registered_city: u.registered_city,
    registered_street_address: u.registered_street_address,
    first_name: u.first_name,
    middle_name: u.middle_name,
    last_name: u.last_name,
  };
  if (u.iec !== null) info.iec = u.iec;
  if (u.legal_name !== null) info.legal_name = u.legal_name;
  return info;
}

async function tariffOf(services: Services, owner: UserRow): Promise<TariffRow> {
  return (await services.store.data.tariffs.get(owner.tariff_id))!;
}

const getInfo = defineCall({
  path: 'user/get_info',
  summary: 'The user, its master (for sub-users), tariff restrictions, features and privileges.',
  params: z.object({}),
  async handler({ services, user, owner }) {
    const tariff = await tariffOf(services, owner);
    const out: Record<string, unknown> = {
      paas_id: owner.dealer_id,
      paas_settings: {},
      user_info: userInfo(user, user.time_zone),
      tariff_restrictions: tariffRestrictions(tariff),
      premium_gis: !!tariff.premium_gis,
      features: features(tariff),
    };
    if (user.parent_id) {
      const rights = JSON.parse(user.rights) as string[];
      const master: Record<string, unknown> = {
        id: owner.id,
        demo: !!owner.demo,
        legal_type: owner.legal_type,
        first_name: owner.first_name,
        middle_name: owner.middle_name,
        last_name: owner.last_name,
        legal_name: owner.legal_name,
        title: owner.title,
      };
      // Money of the master is shown to a sub-user only with payment_create.
      if (rights.includes('payment_create')) {
        master.balance = Math.round(owner.balance * 100) / 100;
        master.bonus = Math.round(owner.bonus * 100) / 100;
      }
      out.master = master;
      out.privileges = { rights };
    }
    return out;
  },
});

const getTariffRestrictions = defineCall({
  path: 'user/get_tariff_restrictions',
  summary: 'Restrictions of the tariff: the maps the user may use.',
  params: z.object({}),
  async handler({ services, owner }) {
    return { value: tariffRestrictions(await tariffOf(services, owner)) };
  },
});

const resendActivation = defineCall({
  path: 'user/resend_activation',
  summary: 'Mail a new activation link (at most one per configured interval, 5 minutes by default).',
  access: 'public',
  params: z.object({ login: z.string().min(1).max(255) }),
  async handler({ params, services }) {
    const { store, config, now } = services;
    const user = await store.data.users.findByLogin(params.login);
    if (!user) throw new DomainError(201, {}, 'Not found in the database: no user with this login');
    if (user.activated) throw new DomainError(265, {}, 'Already done: the user is activated');
    const interval = config.auth.activationIntervalMinutes * 60_000;
    const elapsed = now() - (user.activation_sent_at ?? -Infinity);
    if (elapsed < interval) {
      throw new DomainError(264, { timeout: isoDuration(interval), remainder: isoDuration(interval - elapsed) }, 'Timeout not reached: an activation link was sent recently');
    }
    try {
      await sendActivation(services, user);
    } catch (e) {
      throw new DomainError(209, {}, `Failed sending e-mail: ${(e as Error).message}`);
    }
  },
});

const activate = defineCall({
  path: 'user/activate',
  summary: 'Activate the user: takes only the session hash from the activation e-mail.',
  access: 'activation',
  params: z.object({}),
  async handler({ services, user }) {
    await services.store.data.users.setActivated(user.id);
    // A link activates once.
    await services.store.data.sessions.deleteOfType(user.id, 'activation');
  },
});

export const userCalls = [auth, logout, getInfo, getTariffRestrictions, resendActivation, activate];
