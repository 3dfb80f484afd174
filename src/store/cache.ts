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
  get(key: K, compute: () => V): V {
    const v = this.readVersion();
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
