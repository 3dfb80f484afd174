/** Users (masters and sub-users), dealers and their tariffs. */
import { VersionedCache } from './cache.ts';
import type { DB } from './db.ts';

export interface UserRow {
  id: number;
  parent_id: number | null;
  dealer_id: number;
  tariff_id: number;
  login: string;
  password_hash: string;
  rights: string;
  dealer_blocked: number;
  demo: number;
  activated: number;
  activation_sent_at: number | null;
  title: string;
  phone: string;
  locale: string;
  time_zone: string;
  measurement_system: string;
  legal_type: string;
  default_geocoder: string;
  route_provider: string;
  balance: number;
  bonus: number;
  first_name: string;
  middle_name: string;
  last_name: string;
  legal_name: string | null;
  tin: string;
  iec: string | null;
  post_country: string;
  post_region: string;
  post_index: string;
  post_city: string;
  post_street_address: string;
  registered_country: string;
  registered_region: string;
  registered_index: string;
  registered_city: string;
  registered_street_address: string;
  creation_date: number;
}

export interface Principal {
  user: UserRow;
  owner: UserRow;
  dealerBlocked: boolean;
}

export interface NewUser {
  login: string;
  passwordHash: string;
  parentId?: number | null;
  rights?: string[];
  demo?: boolean;
  activated?: boolean;
  timeZone?: string;
  locale?: string;
  measurementSystem?: string;
  title?: string;
  firstName?: string;
  lastName?: string;
  now: number;
}

/** The columns of a new user: a sub-user takes its master's dealer, tariff and settings unless given (both engines). */
export function newUserRow(u: NewUser, parent: UserRow | undefined) {
  return {
    parent_id: parent?.id ?? null,
    dealer_id: parent?.dealer_id ?? 1,
    tariff_id: parent?.tariff_id ?? 1,
    login: u.login.trim(),
    login_key: u.login.trim().toLowerCase(),
    password_hash: u.passwordHash,
    rights: JSON.stringify(u.rights ?? []),
    demo: u.demo ? 1 : 0,
    activated: u.activated === false ? 0 : 1,
    time_zone: u.timeZone ?? parent?.time_zone ?? 'UTC',
    locale: u.locale ?? parent?.locale ?? 'en',
    measurement_system: u.measurementSystem ?? parent?.measurement_system ?? 'metric',
    title: u.title ?? '',
    first_name: u.firstName ?? '',
    last_name: u.lastName ?? '',
    creation_date: u.now,
  };
}

/** The settings user/settings/update changes (column names; only those given change). */
export const USER_SETTINGS = ['time_zone', 'locale', 'measurement_system', 'default_geocoder', 'route_provider'] as const;
export type UserSettingsChange = Partial<Record<(typeof USER_SETTINGS)[number], string>>;

export class UserStore {
  private byId;
  private byLogin;
  private insert;
  private countAll;
  private dealerBlocked;
  private setActivatedStmt;
  private setActivationSentStmt;
  private setDealerBlockedStmt;
  private setTariffStmt;
  private childrenStmt;
  private cache: VersionedCache<string, UserRow | Principal | undefined>;

  constructor(private db: DB) {
    this.cache = new VersionedCache(db, 'accounts');
    this.byId = db.prepare<[number], UserRow>('SELECT * FROM users WHERE id = ?');
    this.byLogin = db.prepare<[string], UserRow>('SELECT * FROM users WHERE login_key = ?');
    this.insert = db.prepare(
      `INSERT INTO users (parent_id, dealer_id, tariff_id, login, login_key, password_hash, rights, demo, activated, time_zone, locale, measurement_system, title, first_name, last_name, creation_date)
       VALUES (@parent_id, @dealer_id, @tariff_id, @login, @login_key, @password_hash, @rights, @demo, @activated, @time_zone, @locale, @measurement_system, @title, @first_name, @last_name, @creation_date)`,
    );
    this.countAll = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM users');
    this.dealerBlocked = db.prepare<[number], { blocked: number }>('SELECT blocked FROM dealers WHERE id = ?');
    this.setActivatedStmt = db.prepare('UPDATE users SET activated = 1 WHERE id = ?');
    this.setActivationSentStmt = db.prepare('UPDATE users SET activation_sent_at = ? WHERE id = ?');
    this.setDealerBlockedStmt = db.prepare('UPDATE users SET dealer_blocked = ? WHERE id = ? OR parent_id = ?');
    this.setTariffStmt = db.prepare('UPDATE users SET tariff_id = ? WHERE id = ? OR parent_id = ?');
    this.childrenStmt = db.prepare<[number], UserRow>('SELECT * FROM users WHERE parent_id = ? ORDER BY id');
  }

  /** Cached: every call authenticates, and users change rarely. Treat the row as read-only. */
  get(id: number): UserRow | undefined {
    return this.cache.get(`u${id}`, () => this.byId.get(id)) as UserRow | undefined;
  }

  /**
   * What authentication needs of a session's user, in one cached look-up: the user, the owner of
   * its entities (itself or its master) and whether its dealer blocked it.
   */
  principal(id: number, version?: number): Principal | undefined {
    return this.cache.get(`p${id}`, () => {
      const user = this.byId.get(id);
      const owner = user?.parent_id ? this.byId.get(user.parent_id) : user;
      if (!user || !owner) return undefined;
      return { user, owner, dealerBlocked: this.blockedNow(user) };
    }, version) as Principal | undefined;
  }
  findByLogin(login: string): UserRow | undefined {
    return this.byLogin.get(login.trim().toLowerCase());
  }
  count(): number {
    return this.countAll.get()!.n;
  }
  subUsers(masterId: number): UserRow[] {
    return this.childrenStmt.all(masterId);
  }

  create(u: NewUser): number {
    const r = this.insert.run(newUserRow(u, u.parentId ? this.get(u.parentId) : undefined));
    return Number(r.lastInsertRowid);
  }

  /** Blocked by the dealer: the user's own flag, its master's, or the whole dealer. */
  isDealerBlocked(u: UserRow): boolean {
    return this.principal(u.id)?.dealerBlocked ?? this.blockedNow(u);
  }
  private blockedNow(u: UserRow): boolean {
    if (u.dealer_blocked) return true;
    if (u.parent_id && this.byId.get(u.parent_id)?.dealer_blocked) return true;
    return !!this.dealerBlocked.get(u.dealer_id)?.blocked;
  }
  setActivated(id: number): void {
    this.setActivatedStmt.run(id);
  }
  setActivationSent(id: number, at: number): void {
    this.setActivationSentStmt.run(at, id);
  }
  /** Blocks (or unblocks) a master and its sub-users on behalf of their dealer. */
  setDealerBlocked(masterId: number, blocked: boolean): void {
    this.setDealerBlockedStmt.run(blocked ? 1 : 0, masterId, masterId);
  }
  /** Time zone, locale and measurement system (only those given). */
  updateSettings(id: number, s: UserSettingsChange): void {
    const entries = USER_SETTINGS.filter((k) => s[k] !== undefined);
    if (entries.length) this.db.prepare(`UPDATE users SET ${entries.map((k) => `${k} = ?`).join(', ')} WHERE id = ?`).run(...entries.map((k) => s[k]!), id);
  }
  setTariff(masterId: number, tariffId: number): void {
    this.setTariffStmt.run(tariffId, masterId, masterId);
  }
}
