/**
 * Uploads are all or nothing across a crash (issue 23; docs/places-zones.md#uploads-all-or-nothing).
 * The real server runs as a child process; each upload is started and the server is killed with
 * SIGKILL at many points of it: after delays (parsing, geocoding, writing) and when a share of its
 * rows is written (seen from a second connection). After each restart on the same data directory the
 * upload is whole or absent, never partial, and nothing it half-wrote remains. A file retried after
 * a crash (places without external ids) is then stored once, not twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedFleet, startChildServer, stopChildServers, type ChildServer } from '../helpers/child-server.ts';
import { openSql, type DB } from '../helpers/sql.ts';
import { largeKml } from './uploads.ts';

const ZONES = 2000;
const PLACES = 5000;
const dataDir = mkdtempSync(join(tmpdir(), 'fsm-upload-crash-'));
let dbFile: string;
let server: ChildServer | undefined;
let hash: string;
let sql: DB | undefined;

beforeAll(async () => {
  ({ dbFile } = await seedFleet(dataDir, 'crash@example.com', 0));
});
afterAll(async () => {
  try {
    sql?.close();
    await stopChildServers();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

const kml = new TextEncoder().encode(largeKml(ZONES, 40));
/** Places without external ids: a retry has nothing to recognise them by. */
const csv = new TextEncoder().encode(
  ['label;address;lat;lng;radius;external_id;description', ...Array.from({ length: PLACES }, (_, i) => `Shop ${i};Street ${i};${(40 + (i % 100) * 0.01).toFixed(4)};${(10 + Math.floor(i / 100) * 0.01).toFixed(4)};100;;imported`)].join('\n'),
);

async function start(): Promise<void> {
  server = await startChildServer(dataDir);
  const auth = await post('user/auth', { login: 'crash@example.com', password: 'pw' });
  hash = auth.hash;
  sql ??= openSql(dbFile);
}

async function post(path: string, body: Record<string, unknown>) {
  const res = await fetch(`${server!.apiUrl}/v2/fsm/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return res.json();
}

function upload(kind: 'zone' | 'place'): Promise<any> {
  const form = new FormData();
  form.set('hash', hash);
  if (kind === 'zone') {
    form.set('dry_run', 'false');
    form.set('file', new Blob([kml], { type: 'application/vnd.google-earth.kml+xml' }), 'zones.kml');
  } else {
    form.set('error_policy', 'fail');
    form.set('duplicate_policy', 'fail');
    form.set('file', new Blob([csv], { type: 'text/csv' }), 'places.csv');
  }
  return fetch(`${server!.apiUrl}/v2/fsm/${kind}/upload`, { method: 'POST', body: form }).then((r) => r.json());
}

/** Rows as the API shows them, rows not yet shown, and uploads not finished, read from the file. */
function state(kind: 'zone' | 'place') {
  const table = kind === 'zone' ? 'zones' : 'places';
  return {
    shown: sql!.prepare(`SELECT COUNT(*) FROM ${table} WHERE user_id IS NOT NULL`).pluck().get() as number,
    staged: sql!.prepare(`SELECT COUNT(*) FROM ${table} WHERE user_id IS NULL`).pluck().get() as number,
    uploads: sql!.prepare('SELECT COUNT(*) FROM uploads').pluck().get() as number,
  };
}

const listed = async (kind: 'zone' | 'place') =>
  kind === 'zone' ? (await post('zone/list', { hash })).list.length : (await post('place/list', { hash, limit: 1 })).count;

/** Kill the server `when` the upload has gone so far: after `ms`, or once `rows` are staged (or it answered). */
async function killDuring(kind: 'zone' | 'place', when: { ms: number } | { rows: number }): Promise<void> {
  let answered: any;
  const answer = upload(kind).then(
    (body) => (answered = body),
    () => undefined,
  );
  if ('ms' in when) await new Promise((r) => setTimeout(r, when.ms));
  else {
    const end = Date.now() + 60_000;
    while (answered === undefined && state(kind).staged < when.rows && Date.now() < end) await new Promise((r) => setTimeout(r, 2));
  }
  const exited = new Promise((r) => server!.proc.once('exit', r));
  server!.proc.kill('SIGKILL');
  await exited;
  await answer;
  // An upload that answered before the kill must have succeeded (then it is whole below).
  if (answered !== undefined) expect(answered).toMatchObject({ success: true });
}

describe.sequential('kill -9 during an upload, then restart', () => {
  for (const kind of ['zone', 'place'] as const) {
    const n = kind === 'zone' ? ZONES : PLACES;
    it(`${kind}/upload: whole or absent at every point; nothing half-written stays; a retry does not double`, async () => {
      await start();
      let before = await listed(kind);
      const points: Array<{ ms: number } | { rows: number }> = [
        { ms: 50 }, { ms: 900 },
        { rows: 1 }, { rows: Math.floor(n * 0.3) }, { rows: Math.floor(n * 0.7) }, { rows: n - 1 },
      ];
      const partialSeen: number[] = [];
      for (const when of points) {
        await killDuring(kind, when);
        const staged = state(kind).staged;
        if (staged > 0) partialSeen.push(staged);
        await start();
        const after = await listed(kind);
        // Whole or absent: nothing of the upload, or all of it (a kill after its commit).
        expect([before, before + n]).toContain(after);
        expect(state(kind)).toEqual({ shown: after, staged: 0, uploads: 0 });
        before = after;
      }
      // The kills did land while rows were written and not yet shown.
      expect(partialSeen.length).toBeGreaterThanOrEqual(3);
      // The same file again, to the end: exactly n more (the crashed attempts left nothing to double).
      const r = await upload(kind);
      expect(r.success).toBe(true);
      expect(await listed(kind)).toBe(before + n);
      expect(state(kind)).toEqual({ shown: before + n, staged: 0, uploads: 0 });
      const exited = new Promise((res) => server!.proc.once('exit', res));
      server!.proc.kill('SIGKILL');
      await exited;
    }, 300_000);
  }
});
