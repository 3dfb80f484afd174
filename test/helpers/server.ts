/**
 * A real server for tests: a fresh data directory, the API on an ephemeral port (listeners off
 * unless asked), and a second connection to the same SQLite file for setting up fixtures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUser } from '../../src/accounts/accounts.ts';
import { DEFAULT_PROTOCOL_PORTS, loadConfig } from '../../src/config.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { start, type Running } from '../../src/main.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { openSql, type DB } from './sql.ts';
import { copyMigratedDatabase } from './template-db.ts';

export interface TestServer {
  running: Running;
  url: string;
  dataDir: string;
  store: Store;
  /** The test's own connection to the server's SQLite file (fixtures and inspection no store method offers). */
  sql: DB;
  printed: string[];
  /** POST JSON to /v2/fsm/<path>; answers status and parsed body. */
  call(path: string, params?: Record<string, unknown>, init?: RequestInit): Promise<{ status: number; body: any; headers: Headers }>;
  /** Create a user directly and log it in over HTTP; answers its id and session hash. */
  user(login: string, opts?: { password?: string; parent?: string; rights?: string[]; demo?: boolean; timeZone?: string }): Promise<{ id: number; hash: string }>;
  addTracker(userId: number, deviceId: string, opts?: { protocol?: string; label?: string; phone?: string; hasGsm?: boolean; bundledSim?: boolean }): number;
  /** Stops the server and removes its data directory; `keepDataDir` for a restart on the same directory. */
  close(opts?: { keepDataDir?: boolean }): Promise<void>;
}

/** Data directories this helper made: removed by the close() of the last server on them. */
const madeHere = new Set<string>();

/** `dataDir`: reuse a data directory (a restart after `close({ keepDataDir: true })`); default a fresh one. */
export async function startTestServer(env: Record<string, string> = {}, dataDir?: string): Promise<TestServer> {
  if (!dataDir) {
    dataDir = mkdtempSync(join(tmpdir(), 'fsm-test-'));
    madeHere.add(dataDir);
    // A migrated copy instead of migrating at start (the file name is config.dbFile's).
    copyMigratedDatabase(join(dataDir, 'fsm.sqlite'));
  }
  const removeDir = () => {
    if (madeHere.delete(dataDir)) rmSync(dataDir, { recursive: true, force: true });
  };
  const ports = Object.fromEntries(Object.keys(DEFAULT_PROTOCOL_PORTS).map((p) => [`FSM_${p.toUpperCase()}_PORT`, 'off']));
  const printed: string[] = [];
  let running: Running;
  let config: ReturnType<typeof loadConfig>;
  try {
    // No background retention or compaction pass: fixtures are often dated years back (retention tests run passes themselves).
    config = loadConfig({ FSM_DATA_DIR: dataDir, FSM_HTTP_HOST: '127.0.0.1', FSM_HTTP_PORT: '0', FSM_LOG_LEVEL: 'silent', FSM_TELEMETRY_THREADS: '1', FSM_RETENTION_INTERVAL_MINUTES: '0', FSM_COMPACT_INTERVAL_MINUTES: '0', ...ports, ...env });
    running = await start(config, { logger: false, print: (s) => printed.push(s) });
  } catch (e) {
    removeDir();
    throw e;
  }
  const store = openStore(config.dbFile);
  const sql = openSql(config.dbFile);
  const url = running.apiUrl;
  // In process through the API's inject(): the same routing, hooks, parsing and answers as over a
  // socket, without one (tests of the socket itself use fetch or net directly).
  const call: TestServer['call'] = async (path, params = {}, init = {}) => {
    const res = await running.api.inject({
      method: (init.method ?? 'POST') as 'POST',
      url: `/v2/fsm/${path}`,
      // The server's own address as Host: answered URLs (uploads, downloads) then point at it.
      headers: { host: new URL(url).host, 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
      payload: init.body !== undefined && init.body !== null ? String(init.body) : JSON.stringify(params),
    });
    let body: unknown = res.body;
    try {
      body = JSON.parse(res.body);
    } catch {
      /* not JSON */
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) headers.append(k, String(one));
    }
    return { status: res.statusCode, body, headers };
  };
  const deps = { store, config, mailer: createMailer(config.mail), now: Date.now };
  return {
    running,
    url,
    dataDir,
    store,
    sql,
    printed,
    call,
    async user(login, opts = {}) {
      const password = opts.password ?? 'secret-1';
      const { id } = await createUser(deps, { login, password, parentLogin: opts.parent, rights: opts.rights, demo: opts.demo, timeZone: opts.timeZone });
      const r = await call('user/auth', { login, password });
      if (!r.body.success) throw new Error(`login of ${login} failed: ${JSON.stringify(r.body)}`);
      return { id, hash: r.body.hash };
    },
    addTracker(userId, deviceId, o = {}) {
      const id = store.trackers.add({ userId, deviceId, protocol: o.protocol ?? 'teltonika', label: o.label ?? `tracker ${deviceId}`, phone: o.phone ?? null, tariffId: 1, hasGsm: o.hasGsm, bundledSim: o.bundledSim, now: Date.now() });
      // The gateway notices new trackers within a second by itself; tests need not wait for that.
      running.gateway.core.registry.refresh();
      return id;
    },
    async close(opts = {}) {
      try {
        sql.close();
        store.close();
        await running.close();
      } finally {
        if (!opts.keepDataDir) removeDir();
      }
    },
  };
}
