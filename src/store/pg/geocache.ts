/** The PostgreSQL engine's geocoder cache (the SQLite engine's geocache.ts: the same answers). */
import type { Area } from '../contract.ts';
import type { GeoCacheStore } from '../geocache.ts';
import type { Sql } from './connect.ts';

export class PgGeoCacheStore implements Area<GeoCacheStore> {
  constructor(private sql: Sql) {}
  async get(provider: string, request: string, lang: string, since: number): Promise<string | undefined> {
    return (await this.sql`SELECT value FROM geocoder_cache WHERE provider = ${provider} AND request = ${request} AND lang = ${lang} AND created_at >= ${since}`)[0]?.value as string | undefined;
  }
  async put(provider: string, request: string, lang: string, value: string, now: number): Promise<void> {
    await this.sql`INSERT INTO geocoder_cache (provider, request, lang, value, created_at) VALUES (${provider}, ${request}, ${lang}, ${value}, ${now})
      ON CONFLICT (provider, request, lang) DO UPDATE SET value = excluded.value, created_at = excluded.created_at`;
  }
  async prune(before: number): Promise<number> {
    return (await this.sql`DELETE FROM geocoder_cache WHERE created_at < ${before}`).count;
  }
  async count(): Promise<number> {
    return (await this.sql`SELECT count(*) AS n FROM geocoder_cache`)[0].n as number;
  }
}
