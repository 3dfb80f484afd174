/** The field app (migration 021, docs/field-app.md): activation codes, device tokens, the task feed. */
import type { DB } from './db.ts';
import type { TaskRow } from './tasks.ts';

export interface AppTokenRow {
  id: number;
  token_hash: string;
  tracker_id: number;
  label: string;
  created: number;
  last_used: number;
}

export interface ActivationCodeRow {
  tracker_id: number;
  code: string;
  created: number;
  expires: number;
}

/** Refresh last_used at most once a minute per token (as sessions do). */
const TOUCH_EVERY_MS = 60_000;

export class FieldAppStore {
  private putCode;
  private codeByCode;
  private codeOfTracker;
  private dropCode;
  private insertToken;
  private tokenByHash;
  private touchStmt;
  private tokensOf;
  private revokeAll;
  private revokeOne;
  private versionStmt;
  private feedMaxStmt;
  private prunedStmt;
  private feedSinceStmt;
  private pruneStmt;
  private setPrunedStmt;
  private deleteFeedStmt;
  private currentTasksStmt;
  private taskOfStmt;
  private requestStmt;
  private rememberStmt;
  private pruneRequestsStmt;

  constructor(private db: DB) {
    this.putCode = db.prepare('INSERT INTO app_activation_codes (tracker_id, code, created, expires) VALUES (?, ?, ?, ?) ON CONFLICT (tracker_id) DO UPDATE SET code = excluded.code, created = excluded.created, expires = excluded.expires');
    this.codeByCode = db.prepare<[string], ActivationCodeRow>('SELECT * FROM app_activation_codes WHERE code = ?');
    this.codeOfTracker = db.prepare<[number], ActivationCodeRow>('SELECT * FROM app_activation_codes WHERE tracker_id = ?');
    this.dropCode = db.prepare('DELETE FROM app_activation_codes WHERE tracker_id = ?');
    this.insertToken = db.prepare('INSERT INTO app_tokens (token_hash, tracker_id, label, created, last_used) VALUES (?, ?, ?, ?, ?)');
    this.tokenByHash = db.prepare<[string], AppTokenRow>('SELECT * FROM app_tokens WHERE token_hash = ?');
    this.touchStmt = db.prepare('UPDATE app_tokens SET last_used = ? WHERE id = ?');
    this.tokensOf = db.prepare<[number], AppTokenRow>('SELECT * FROM app_tokens WHERE tracker_id = ? ORDER BY id');
    this.revokeAll = db.prepare('DELETE FROM app_tokens WHERE tracker_id = ?');
    this.revokeOne = db.prepare('DELETE FROM app_tokens WHERE tracker_id = ? AND id = ?');
    this.versionStmt = db.prepare<[], number>("SELECT value FROM versions WHERE name = 'app_tokens'").pluck();
    this.feedMaxStmt = db.prepare<[], number>("SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'app_task_feed'), 0)").pluck();
    this.prunedStmt = db.prepare<[], number>("SELECT value FROM versions WHERE name = 'app_task_feed_pruned'").pluck();
    this.feedSinceStmt = db.prepare<[number, number, number], { seq: number; task_id: number }>('SELECT seq, task_id FROM app_task_feed WHERE tracker_id = ? AND seq > ? ORDER BY seq LIMIT ?');
    this.pruneStmt = db.prepare<[number], number>('SELECT MAX(seq) FROM app_task_feed WHERE at < ?').pluck();
    this.deleteFeedStmt = db.prepare('DELETE FROM app_task_feed WHERE seq <= ?');
    this.setPrunedStmt = db.prepare("UPDATE versions SET value = max(value, ?) WHERE name = 'app_task_feed_pruned'");
    this.currentTasksStmt = db.prepare<[number, number, number], TaskRow>(
      'SELECT * FROM tasks WHERE tracker_id = ? AND (to_time IS NULL OR to_time >= ?) ORDER BY from_time, id LIMIT ?',
    );
    this.taskOfStmt = db.prepare<[number, number], TaskRow>('SELECT * FROM tasks WHERE id = ? AND tracker_id = ?');
    this.requestStmt = db.prepare<[number, string], { path: string; answer: string }>('SELECT path, answer FROM app_requests WHERE token_id = ? AND key = ?');
    this.rememberStmt = db.prepare('INSERT OR IGNORE INTO app_requests (token_id, key, path, answer, created) VALUES (?, ?, ?, ?, ?)');
    this.pruneRequestsStmt = db.prepare('DELETE FROM app_requests WHERE created < ?');
  }

  // ---- activation codes

  /** Sets the tracker's one live code (replacing an older one). */
  setCode(trackerId: number, code: string, now: number, expires: number): void {
    this.putCode.run(trackerId, code, now, expires);
  }
  codeOf(trackerId: number): ActivationCodeRow | undefined {
    return this.codeOfTracker.get(trackerId);
  }
  findCode(code: string): ActivationCodeRow | undefined {
    return this.codeByCode.get(code);
  }
  deleteCode(trackerId: number): void {
    this.dropCode.run(trackerId);
  }

  // ---- device tokens

  addToken(trackerId: number, tokenHash: string, label: string, now: number): number {
    return Number(this.insertToken.run(tokenHash, trackerId, label, now, now).lastInsertRowid);
  }
  /** The token row; refreshes its last use (at most once a minute). */
  findToken(tokenHash: string, now: number): AppTokenRow | undefined {
    const t = this.tokenByHash.get(tokenHash);
    if (t && now - t.last_used > TOUCH_EVERY_MS) {
      this.touchStmt.run(now, t.id);
      t.last_used = now;
    }
    return t;
  }
  tokens(trackerId: number): AppTokenRow[] {
    return this.tokensOf.all(trackerId);
  }
  /** Revokes one token of the tracker, or all of them (and the live code) when `tokenId` is absent; answers how many went. */
  revoke(trackerId: number, tokenId?: number): number {
    return this.db.transaction(() => {
      if (tokenId !== undefined) return this.revokeOne.run(trackerId, tokenId).changes;
      this.dropCode.run(trackerId);
      return this.revokeAll.run(trackerId).changes;
    })();
  }
  /** Moves whenever a token is revoked (by any process). */
  tokensVersion(): number {
    return this.versionStmt.get() as number;
  }

  // ---- task feed

  /** The newest feed position (0: nothing ever changed). */
  feedHead(): number {
    return this.feedMaxStmt.get() as number;
  }
  /** Positions at or below this were pruned: a cursor below it cannot be continued. */
  feedPruned(): number {
    return this.prunedStmt.get() as number;
  }
  /** Feed rows of the tracker after `cursor`, oldest first, at most `limit`. */
  feedSince(trackerId: number, cursor: number, limit: number): Array<{ seq: number; task_id: number }> {
    return this.feedSinceStmt.all(trackerId, cursor, limit);
  }
  /** Drops feed rows written before `before` (ms UTC). */
  pruneFeed(before: number): void {
    this.db.transaction(() => {
      const upTo = this.pruneStmt.get(before) as number | null;
      if (upTo === null) return;
      this.deleteFeedStmt.run(upTo);
      this.setPrunedStmt.run(upTo);
    })();
  }
  /** The tracker's tasks whose window has not ended before `since` (or has no end), by start time, at most `limit`. */
  currentTasks(trackerId: number, since: number, limit: number): TaskRow[] {
    return this.currentTasksStmt.all(trackerId, since, limit);
  }
  /** The task if it is (still) the tracker's. */
  taskOf(trackerId: number, taskId: number): TaskRow | undefined {
    return this.taskOfStmt.get(taskId, trackerId);
  }
  /** The answer to the token's call made with this idempotency key, if one was stored. */
  answered(tokenId: number, key: string): { path: string; answer: string } | undefined {
    return this.requestStmt.get(tokenId, key);
  }
  remember(tokenId: number, key: string, path: string, answer: string, now: number): void {
    this.rememberStmt.run(tokenId, key, path, answer, now);
  }
  /** Drops idempotency keys stored before `before` (ms UTC). */
  pruneRequests(before: number): void {
    this.pruneRequestsStmt.run(before);
  }
}
