/** Sessions (opaque hashes) and the failed-login journal used for rate limiting. */
import { randomBytes } from 'node:crypto';
import { VersionedCache } from './cache.ts';
import type { DB } from './db.ts';

export type SessionType = 'user' | 'activation' | 'delivery';

export interface SessionRow {
  hash: string;
  user_id: number;
  type: SessionType;
  created: number;
  last_used: number;
}

/** Refresh last_used at most once a minute per session: a write on every call would cost more than the call. */
const TOUCH_EVERY_MS = 60_000;

export class SessionStore {
  private getStmt;
  private insertStmt;
  private deleteStmt;
  private touchStmt;
  private countStmt;
  private purgeStmt;
  private deleteTypeStmt;
  private ofTypeStmt;
  private failInsert;
  private failCount;
  private failOldest;
  private failPurge;
  private failClear;
  private failWithdraw;

  /** Sessions by hash (null: no such session), valid while no session is created or destroyed (migration 012). */
  private cache: VersionedCache<string, SessionRow | null>;

  constructor(db: DB) {
    this.cache = new VersionedCache(db, 'sessions', 100_000);
    this.getStmt = db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE hash = ?');
    this.insertStmt = db.prepare('INSERT INTO sessions (hash, user_id, type, created, last_used) VALUES (?, ?, ?, ?, ?)');
    this.deleteStmt = db.prepare('DELETE FROM sessions WHERE hash = ?');
    this.touchStmt = db.prepare('UPDATE sessions SET last_used = ? WHERE hash = ?');
    this.countStmt = db.prepare<[number, string, number], { n: number }>('SELECT COUNT(*) AS n FROM sessions WHERE user_id = ? AND type = ? AND last_used >= ?');
    this.purgeStmt = db.prepare('DELETE FROM sessions WHERE last_used < ?');
    this.deleteTypeStmt = db.prepare('DELETE FROM sessions WHERE user_id = ? AND type = ?');
    this.ofTypeStmt = db.prepare<[number, string], SessionRow>('SELECT * FROM sessions WHERE user_id = ? AND type = ? ORDER BY created DESC LIMIT 1');
    this.failInsert = db.prepare('INSERT INTO auth_failures (key, at) VALUES (?, ?)');
    this.failCount = db.prepare<[string, number], { n: number }>('SELECT COUNT(*) AS n FROM auth_failures WHERE key = ? AND at >= ?');
    this.failOldest = db.prepare<[string, number, number], { at: number }>('SELECT at FROM auth_failures WHERE key = ? AND at >= ? ORDER BY at LIMIT 1 OFFSET ?');
    this.failPurge = db.prepare('DELETE FROM auth_failures WHERE at < ?');
    this.failClear = db.prepare('DELETE FROM auth_failures WHERE key = ?');
    this.failWithdraw = db.prepare('DELETE FROM auth_failures WHERE rowid = ?');
  }

  create(userId: number, type: SessionType, now: number): string {
    const hash = randomBytes(16).toString('hex');
    this.insertStmt.run(hash, userId, type, now, now);
    return hash;
  }

  /**
   * The session while it has not expired, without renewing it nor deleting it: the live channel
   * checks its socket's session this way (an open socket is no use of the session, docs/live.md).
   */
  alive(hash: string, now: number, ttlMs: number, version?: number): SessionRow | undefined {
    const s = this.cache.get(hash, () => this.getStmt.get(hash) ?? null, version);
    return s && s.last_used >= now - ttlMs ? s : undefined;
  }

  /** The session if it exists and was used within the TTL; refreshes its last use. */
  find(hash: string, now: number, ttlMs: number, version?: number): SessionRow | undefined {
    const s = this.cache.get(hash, () => this.getStmt.get(hash) ?? null, version);
    if (!s) return undefined;
    if (s.last_used < now - ttlMs) {
      this.deleteStmt.run(hash);
      return undefined;
    }
    if (now - s.last_used > TOUCH_EVERY_MS) {
      this.touchStmt.run(now, hash);
      s.last_used = now; // the cached row too (touching does not move the sessions version)
    }
    return s;
  }

  /** user/session/renew: the session's lifetime starts again now (the cached row too). */
  renew(hash: string, now: number): void {
    this.touchStmt.run(now, hash);
    const s = this.cache.get(hash, () => this.getStmt.get(hash) ?? null);
    if (s) s.last_used = now;
  }

  activeCount(userId: number, type: SessionType, now: number, ttlMs: number): number {
    return this.countStmt.get(userId, type, now - ttlMs)!.n;
  }
  delete(hash: string): void {
    this.deleteStmt.run(hash);
  }
  /** The newest session of a type for a user (the delivery session: one per master). */
  ofType(userId: number, type: SessionType): SessionRow | undefined {
    return this.ofTypeStmt.get(userId, type);
  }
  deleteOfType(userId: number, type: SessionType): void {
    this.deleteTypeStmt.run(userId, type);
  }
  purgeExpired(now: number, ttlMs: number): void {
    this.purgeStmt.run(now - ttlMs);
  }

  /** Answers the record's id: an attempt counted before its outcome is known can be withdrawn. */
  recordFailure(key: string, now: number): number {
    return Number(this.failInsert.run(key, now).lastInsertRowid);
  }
  withdrawFailure(recordId: number): void {
    this.failWithdraw.run(recordId);
  }
  failures(key: string, since: number): number {
    return this.failCount.get(key, since)!.n;
  }
  /** When the window will again hold fewer than `limit` failures of `key`: the moment the blocking one ages out. */
  retryAt(key: string, since: number, limit: number, windowMs: number): number {
    const n = this.failures(key, since);
    const row = this.failOldest.get(key, since, Math.max(0, n - limit));
    return (row?.at ?? since) + windowMs;
  }
  clearFailures(key: string): void {
    this.failClear.run(key);
  }
  purgeFailures(before: number): void {
    this.failPurge.run(before);
  }
}
