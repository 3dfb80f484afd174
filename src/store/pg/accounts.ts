/**
 * The PostgreSQL engine's accounts: users, tariffs, sessions and the failed-login journal, and the
 * change counters authentication reads (the SQLite engine's users.ts, tariffs.ts, sessions.ts,
 * cache.ts; the same rows and answers, docs/store.md).
 */
import { randomBytes } from 'node:crypto';
import type { Area } from '../contract.ts';
import type { UserStore, UserRow, Principal, NewUser } from '../users.ts';
import { newUserRow, USER_SETTINGS, type UserSettingsChange } from '../users.ts';
import type { TariffStore, TariffRow, TariffChanges } from '../tariffs.ts';
import { TARIFF_FIELDS } from '../tariffs.ts';
import type { SessionStore, SessionRow, SessionType } from '../sessions.ts';
import type { AuthVersions } from '../cache.ts';
import type { Sql } from './connect.ts';

/** A cache emptied whenever a change counter moves (bumped by triggers, so every connection's writes count). */
export class VersionedCache<V> {
  private seen = -1;
  private map = new Map<string, V>();
  constructor(private sql: Sql, private name: string, private max = 10_000) {}
  async get(key: string, compute: () => Promise<V>, version?: number): Promise<V> {
    const v = version ?? Number((await this.sql`SELECT value FROM versions WHERE name = ${this.name}`)[0].value);
    if (v !== this.seen) {
      this.map.clear();
      this.seen = v;
    }
    let x = this.map.get(key);
    if (x === undefined) {
      x = await compute();
      if (this.map.size >= this.max) this.map.clear();
      this.map.set(key, x);
    }
    return x;
  }
}

export class PgAuthVersions implements Area<AuthVersions> {
  constructor(private sql: Sql) {}
  async read(): Promise<{ sessions: number; accounts: number }> {
    const [r] = await this.sql<{ sessions: number; accounts: number }[]>`
      SELECT (SELECT value FROM versions WHERE name = 'sessions') AS sessions, (SELECT value FROM versions WHERE name = 'accounts') AS accounts`;
    return { sessions: r.sessions, accounts: r.accounts };
  }
}

export class PgUserStore implements Area<UserStore> {
  private cache: VersionedCache<UserRow | Principal | undefined>;
  constructor(private sql: Sql) {
    this.cache = new VersionedCache(sql, 'accounts');
  }
  private async byId(id: number): Promise<UserRow | undefined> {
    return (await this.sql<UserRow[]>`SELECT * FROM users WHERE id = ${id}`)[0];
  }
  async get(id: number): Promise<UserRow | undefined> {
    return (await this.cache.get(`u${id}`, () => this.byId(id))) as UserRow | undefined;
  }
  async principal(id: number, version?: number): Promise<Principal | undefined> {
    return (await this.cache.get(`p${id}`, async () => {
      const user = await this.byId(id);
      const owner = user?.parent_id ? await this.byId(user.parent_id) : user;
      if (!user || !owner) return undefined;
      return { user, owner, dealerBlocked: await this.blockedNow(user) };
    }, version)) as Principal | undefined;
  }
  async findByLogin(login: string): Promise<UserRow | undefined> {
    return (await this.sql<UserRow[]>`SELECT * FROM users WHERE login_key = ${login.trim().toLowerCase()}`)[0];
  }
  async count(): Promise<number> {
    return Number((await this.sql`SELECT count(*) AS n FROM users`)[0].n);
  }
  async subUsers(masterId: number): Promise<UserRow[]> {
    return [...(await this.sql<UserRow[]>`SELECT * FROM users WHERE parent_id = ${masterId} ORDER BY id`)];
  }
  async create(u: NewUser): Promise<number> {
    const row = newUserRow(u, u.parentId ? await this.get(u.parentId) : undefined);
    return (await this.sql`INSERT INTO users ${this.sql(row)} RETURNING id`)[0].id as number;
  }
  async isDealerBlocked(u: UserRow): Promise<boolean> {
    return (await this.principal(u.id))?.dealerBlocked ?? (await this.blockedNow(u));
  }
  private async blockedNow(u: UserRow): Promise<boolean> {
    if (u.dealer_blocked) return true;
    if (u.parent_id && (await this.byId(u.parent_id))?.dealer_blocked) return true;
    return !!(await this.sql`SELECT blocked FROM dealers WHERE id = ${u.dealer_id}`)[0]?.blocked;
  }
  async setActivated(id: number): Promise<void> {
    await this.sql`UPDATE users SET activated = 1 WHERE id = ${id}`;
  }
  async setActivationSent(id: number, at: number): Promise<void> {
    await this.sql`UPDATE users SET activation_sent_at = ${at} WHERE id = ${id}`;
  }
  async setDealerBlocked(masterId: number, blocked: boolean): Promise<void> {
    await this.sql`UPDATE users SET dealer_blocked = ${blocked ? 1 : 0} WHERE id = ${masterId} OR parent_id = ${masterId}`;
  }
  async updateSettings(id: number, s: UserSettingsChange): Promise<void> {
    const changes = Object.fromEntries(USER_SETTINGS.filter((k) => s[k] !== undefined).map((k) => [k, s[k]!]));
    if (Object.keys(changes).length) await this.sql`UPDATE users SET ${this.sql(changes)} WHERE id = ${id}`;
  }
  async setTariff(masterId: number, tariffId: number): Promise<void> {
    await this.sql`UPDATE users SET tariff_id = ${tariffId} WHERE id = ${masterId} OR parent_id = ${masterId}`;
  }
}

export class PgTariffStore implements Area<TariffStore> {
  constructor(private sql: Sql) {}
  async get(id: number): Promise<TariffRow | undefined> {
    return (await this.sql<TariffRow[]>`SELECT * FROM tariffs WHERE id = ${id}`)[0];
  }
  async copy(fromId: number, name: string): Promise<number> {
    // Column names from the TARIFF_FIELDS whitelist, never input.
    const cols = Object.keys(TARIFF_FIELDS).join(', ');
    return (await this.sql.unsafe(`INSERT INTO tariffs (name, started, ${cols}) SELECT $1, started, ${cols} FROM tariffs WHERE id = $2 RETURNING id`, [name, fromId]))[0].id as number;
  }
  async update(id: number, changes: TariffChanges): Promise<void> {
    const entries = Object.entries(changes).filter(([k]) => k in TARIFF_FIELDS);
    if (!entries.length) return;
    const row = Object.fromEntries(entries.map(([k, v]) => [k, Array.isArray(v) ? JSON.stringify(v) : typeof v === 'boolean' ? (v ? 1 : 0) : v]));
    await this.sql`UPDATE tariffs SET ${this.sql(row)} WHERE id = ${id}`;
  }
}

/** Refresh last_used at most once a minute per session (as the SQLite engine). */
const TOUCH_EVERY_MS = 60_000;

export class PgSessionStore implements Area<SessionStore> {
  private cache: VersionedCache<SessionRow | null>;
  constructor(private sql: Sql) {
    this.cache = new VersionedCache(sql, 'sessions', 100_000);
  }
  private async row(hash: string): Promise<SessionRow | null> {
    return (await this.sql<SessionRow[]>`SELECT * FROM sessions WHERE hash = ${hash}`)[0] ?? null;
  }
  async create(userId: number, type: SessionType, now: number): Promise<string> {
    const hash = randomBytes(16).toString('hex');
    await this.sql`INSERT INTO sessions (hash, user_id, type, created, last_used) VALUES (${hash}, ${userId}, ${type}, ${now}, ${now})`;
    return hash;
  }
  async alive(hash: string, now: number, ttlMs: number, version?: number): Promise<SessionRow | undefined> {
    const s = await this.cache.get(hash, () => this.row(hash), version);
    return s && s.last_used >= now - ttlMs ? s : undefined;
  }
  async find(hash: string, now: number, ttlMs: number, version?: number): Promise<SessionRow | undefined> {
    const s = await this.cache.get(hash, () => this.row(hash), version);
    if (!s) return undefined;
    if (s.last_used < now - ttlMs) {
      await this.sql`DELETE FROM sessions WHERE hash = ${hash}`;
      return undefined;
    }
    if (now - s.last_used > TOUCH_EVERY_MS) {
      await this.sql`UPDATE sessions SET last_used = ${now} WHERE hash = ${hash}`;
      s.last_used = now;
    }
    return s;
  }
  async renew(hash: string, now: number): Promise<void> {
    await this.sql`UPDATE sessions SET last_used = ${now} WHERE hash = ${hash}`;
    const s = await this.cache.get(hash, () => this.row(hash));
    if (s) s.last_used = now;
  }
  async activeCount(userId: number, type: SessionType, now: number, ttlMs: number): Promise<number> {
    return Number((await this.sql`SELECT count(*) AS n FROM sessions WHERE user_id = ${userId} AND type = ${type} AND last_used >= ${now - ttlMs}`)[0].n);
  }
  async delete(hash: string): Promise<void> {
    await this.sql`DELETE FROM sessions WHERE hash = ${hash}`;
  }
  async ofType(userId: number, type: SessionType): Promise<SessionRow | undefined> {
    return (await this.sql<SessionRow[]>`SELECT * FROM sessions WHERE user_id = ${userId} AND type = ${type} ORDER BY created DESC LIMIT 1`)[0];
  }
  async deleteOfType(userId: number, type: SessionType): Promise<void> {
    await this.sql`DELETE FROM sessions WHERE user_id = ${userId} AND type = ${type}`;
  }
  async purgeExpired(now: number, ttlMs: number): Promise<void> {
    await this.sql`DELETE FROM sessions WHERE last_used < ${now - ttlMs}`;
  }
  async recordFailure(key: string, now: number): Promise<number> {
    return (await this.sql`INSERT INTO auth_failures (key, at) VALUES (${key}, ${now}) RETURNING id`)[0].id as number;
  }
  async withdrawFailure(recordId: number): Promise<void> {
    await this.sql`DELETE FROM auth_failures WHERE id = ${recordId}`;
  }
  async failures(key: string, since: number): Promise<number> {
    return Number((await this.sql`SELECT count(*) AS n FROM auth_failures WHERE key = ${key} AND at >= ${since}`)[0].n);
  }
  async retryAt(key: string, since: number, limit: number, windowMs: number): Promise<number> {
    const n = await this.failures(key, since);
    const row = (await this.sql`SELECT at FROM auth_failures WHERE key = ${key} AND at >= ${since} ORDER BY at LIMIT 1 OFFSET ${Math.max(0, n - limit)}`)[0];
    return ((row?.at as number | undefined) ?? since) + windowMs;
  }
  async clearFailures(key: string): Promise<void> {
    await this.sql`DELETE FROM auth_failures WHERE key = ${key}`;
  }
  async purgeFailures(before: number): Promise<void> {
    await this.sql`DELETE FROM auth_failures WHERE at < ${before}`;
  }
}
