/**
 * Account operations shared by the API, the admin command and the first start: creating users
 * and sub-users, and activation mail.
 */
import type { Mailer } from '../mail/mailer.ts';
import type { Store } from '../store/index.ts';
import type { UserRow } from '../store/users.ts';
import { GRANTABLE_RIGHTS } from './rights.ts';
import { hashPassword, PASSWORD_RULE, randomPassword } from '../auth/passwords.ts';
import { isValidTimeZone } from '../core/time.ts';
import { settingsErrors } from './settings.ts';

export class AccountError extends Error {}

export interface CreateUserInput {
  login: string;
  password: string;
  parentLogin?: string;
  rights?: string[];
  timeZone?: string;
  locale?: string;
  measurementSystem?: string;
  demo?: boolean;
  unactivated?: boolean;
}

/** Plain option values (the API's Services and the admin command's context both fit). */
interface Deps {
  store: Store;
  /** Where activation links point: FSM_PUBLIC_URL, else the local API port. */
  config: { readonly publicUrl: string | null; readonly http: { readonly port: number } };
  mailer: Mailer;
  now: () => number;
}

export async function createUser(deps: Deps, input: CreateUserInput): Promise<{ id: number; activationMailed: boolean }> {
  const data = deps.store.data;
  const login = input.login?.trim();
  if (!login) throw new AccountError('login must not be empty');
  if (login.length > 100) throw new AccountError('login must be at most 100 characters');
  if (!PASSWORD_RULE.test(input.password ?? '')) throw new AccountError('password must be 1 to 40 printable characters');
  if (await data.users.findByLogin(login)) throw new AccountError(`a user with login ${login} exists already`);
  if (input.timeZone && !isValidTimeZone(input.timeZone)) throw new AccountError(`unknown time zone ${input.timeZone}`);
  const wrong = settingsErrors({ locale: input.locale, measurement_system: input.measurementSystem });
  if (wrong.length) throw new AccountError(`${wrong[0].parameter.replace('_', '-')}: ${wrong[0].error}`);
  let parent: UserRow | undefined;
  if (input.parentLogin) {
    parent = await data.users.findByLogin(input.parentLogin);
    if (!parent) throw new AccountError(`no user with login ${input.parentLogin}`);
    if (parent.parent_id) throw new AccountError(`${input.parentLogin} is a sub-user; sub-users belong to master users`);
  }
  const rights = input.rights ?? [];
  const unknown = rights.filter((r) => !(GRANTABLE_RIGHTS as string[]).includes(r));
  if (unknown.length) throw new AccountError(`unknown right(s) ${unknown.join(', ')}; rights are ${GRANTABLE_RIGHTS.join(', ')}`);
  if (rights.length && !parent) throw new AccountError('rights are given to sub-users (use --parent)');
  const id = await data.users.create({
    login,
    passwordHash: await hashPassword(input.password),
    parentId: parent?.id,
    rights,
    demo: input.demo,
    activated: !input.unactivated,
    timeZone: input.timeZone,
    locale: input.locale,
    measurementSystem: input.measurementSystem,
    now: deps.now(),
  });
  let activationMailed = false;
  if (input.unactivated) {
    await sendActivation(deps, (await data.users.get(id))!);
    activationMailed = true;
  }
  return { id, activationMailed };
}

/** Mails a fresh activation link; the link's hash is the only one user/activate accepts. Throws when sending fails. */
export async function sendActivation(deps: Deps, user: UserRow): Promise<void> {
  const { config, mailer } = deps;
  const data = deps.store.data;
  const now = deps.now();
  const hash = await data.sessions.create(user.id, 'activation', now);
  const base = config.publicUrl ?? `http://localhost:${config.http.port}`;
  const link = `${base.replace(/\/$/, '')}/v2/fsm/user/activate?hash=${hash}`;
  try {
    await mailer.send({
      to: user.login,
      subject: 'Activate your account',
      text: `Hello,\n\nto activate your account ${user.login}, open this link:\n\n${link}\n\nIf you did not register, ignore this message.\n`,
    });
  } catch (e) {
    await data.sessions.delete(hash);
    throw e;
  }
  await data.users.setActivationSent(user.id, now);
}

/** On an empty database: a master user with a random password, returned once so it can be printed. */
export async function ensureFirstMaster(deps: Deps): Promise<{ login: string; password: string } | null> {
  if ((await deps.store.data.users.count()) > 0) return null;
  const login = 'admin@localhost';
  const password = randomPassword();
  await createUser(deps, { login, password });
  return { login, password };
}
