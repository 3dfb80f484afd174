/**
 * The PostgreSQL connection (docs/store.md#postgresql): postgres.js, chosen by measurement
 * (bench/pg-driver.ts: round trips one at a time, what a request's reads are, were about 2.8x
 * node-postgres's here; batched writes on par). Rows read as the SQLite engine's do: bigint
 * columns (ids, milliseconds) as numbers, bytea as Buffers.
 */
import postgres from 'postgres';

export type Sql = postgres.Sql<Record<string, never>>;
export type TxSql = postgres.TransactionSql<Record<string, never>>;

/** What FSM_DATABASE_URL must look like; anything else is refused with this message. */
export function checkDatabaseUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`FSM_DATABASE_URL: "${url.replace(/\/\/[^@/]*@/, '//…@')}" is not a URL; expected postgres://user[:password]@host[:port]/database`);
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') throw new Error(`FSM_DATABASE_URL: the scheme must be postgres:// (got ${u.protocol}//)`);
  if (!u.pathname || u.pathname === '/') throw new Error('FSM_DATABASE_URL: name the database in the path (postgres://host/fsm)');
  return u;
}

export function connectPostgres(url: string, opts: { max?: number } = {}): Sql {
  checkDatabaseUrl(url);
  return postgres(url, {
    max: opts.max ?? 10,
    onnotice: () => undefined,
    // int8 as a JavaScript number: ids and ms timestamps stay far below 2^53.
    types: { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } },
    connection: { application_name: 'fsm' },
  }) as unknown as Sql;
}
