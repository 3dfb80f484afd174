/** The geocoder's SQLite cache (migration 007): results of remote providers, kept for a number of days. */
import type { DB } from './db.ts';

export class GeoCacheStore {
  private readonly getStmt;
  private readonly putStmt;
  private readonly pruneStmt;
  private readonly countStmt;

  constructor(db: DB) {
    this.getStmt = db.prepare<[string, string, string, number], { value: string }>('SELECT value FROM geocoder_cache WHERE provider = ? AND request = ? AND lang = ? AND created_at >= ?');
    this.putStmt = db.prepare<[string, string, string, string, number]>(
      'INSERT INTO geocoder_cache (provider, request, lang, value, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (provider, request, lang) DO UPDATE SET value = excluded.value, created_at = excluded.created_at',
    );
    this.pruneStmt = db.prepare<[number]>('DELETE FROM geocoder_cache WHERE created_at < ?');
    this.countStmt = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM geocoder_cache');
  }

  /** The stored JSON text, if an entry not older than `since` (ms UTC) exists. */
  get(provider: string, request: string, lang: string, since: number): string | undefined {
    return this.getStmt.get(provider, request, lang, since)?.value;
  }

  put(provider: string, request: string, lang: string, value: string, now: number): void {
    this.putStmt.run(provider, request, lang, value, now);
  }

  /** Deletes entries created before `before`; answers how many. */
  prune(before: number): number {
    return this.pruneStmt.run(before).changes;
  }

  count(): number {
    return this.countStmt.get()!.n;
  }
}
