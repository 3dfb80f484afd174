/**
 * An in-memory cache that empties itself whenever a database change counter moves. The counters
 * are bumped by triggers (migration 002), so writes from any connection or process count.
 * Reading the counter is one indexed single-row SELECT, far cheaper than what it saves.
 */
import type { DB } from './db.ts';

export class VersionedCache<K, V> {
  private seen = -1;
  private map = new Map<K, V>();
  private readVersion: () => number;
  constructor(db: DB, versionName: string, private max = 10_000) {
    const stmt = db.prepare<[string], { value: number }>('SELECT value FROM versions WHERE name = ?').pluck();
    this.readVersion = () => stmt.get(versionName) as unknown as number;
  }
  /** `version`: the counter's value when the caller just read it (saves reading it again). */
  get(key: K, compute: () => V, version?: number): V {
    const v = version ?? this.readVersion();
    if (v !== this.seen) {
      this.map.clear();
      this.seen = v;
    }
    let x = this.map.get(key);
    if (x === undefined) {
      x = compute();
      if (this.map.size >= this.max) this.map.clear();
      this.map.set(key, x);
    }
    return x;
  }
}

/**
 * The counters authentication needs, in one statement: every call reads them, so one read instead
 * of one per cache. Use the values at once (no write in between), as the kernel does.
 */
export class AuthVersions {
  private stmt;
  constructor(db: DB) {
    this.stmt = db.prepare<[], { sessions: number; accounts: number }>(
      "SELECT (SELECT value FROM versions WHERE name = 'sessions') AS sessions, (SELECT value FROM versions WHERE name = 'accounts') AS accounts",
    );
  }
  read(): { sessions: number; accounts: number } {
    return this.stmt.get()!;
  }
}
