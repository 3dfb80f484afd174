/**
 * Compaction over real SQLite files (issue 15, docs/storage.md): `npm run fsm -- compact` as a real
 * process prints its progress and the database file shrinks, every fix read back identical; a
 * compaction killed mid-run loses nothing; retention drops whole chunks and re-encodes the one
 * reaching over its bound.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { openDatabase } from '../../src/store/db.ts';
import { FixChunkStore, type StoredFix } from '../../src/store/fix-chunks.ts';
import { runRetention } from '../../src/retention/retention.ts';
import { fsm } from '../helpers/cli.ts';

const DAY_MS = 86_400_000;
const NOW = Date.now();
const T0 = Math.floor(NOW / DAY_MS) * DAY_MS - 12 * DAY_MS;
const SOURCES = [1, 2, 3];
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** 9 to 10 days of a fix a minute per device (all past the default horizon), with every kind of value (nulls, status records, attributes). */
function fixesOf(source: number): StoredFix[] {
  const out: StoredFix[] = [];
  for (let time = T0 + source * 1000; time < NOW - 3 * DAY_MS; time += 60_000) {
    const i = out.length;
    const status = i % 97 === 5;
    out.push({
      time,
      lat: status ? null : 54.6 + Math.sin(i / 500) / 10,
      lng: status ? null : 25.2 + Math.cos(i / 700) / 10,
      alt: i % 13 ? 100 + (i % 40) : null,
      speed: status ? null : (i * 7) % 90,
      course: status ? null : (i * 11) % 360,
      satellites: status ? null : 5 + (i % 8),
      hdop: status ? null : 0.8,
      precision: i % 5 ? null : 12.5,
      flags: status ? 8 : 1 | (i % 3 ? 8 | 16 : 8) | (i % 211 === 0 ? 32 : 0),
      received: time + 1500 + (i % 7),
      attrs: i % 31 === 0 ? null : JSON.stringify({ power: 12 + (i % 20) / 10, battery: 4.1, fuel_level: 60 - (i % 300) / 10, io_239: i % 2, ...(i % 211 === 0 ? { alarm: 'sos' } : {}) }),
      odometer: status ? null : i * 100,
      hours: i % 3 ? i * 60_000 : null,
      fuel_used: null,
    });
  }
  return out;
}

function seed(): { dir: string; file: string; fixes: Map<number, StoredFix[]> } {
  const dir = mkdtempSync(join(tmpdir(), 'fsm-compact-'));
  dirs.push(dir);
  const file = join(dir, 'fsm.sqlite');
  const db = openDatabase(file);
  const fixes = new Map<number, StoredFix[]>();
  const put = db.prepare(
    `INSERT INTO fixes (source_id, time, lat, lng, alt, speed, course, satellites, hdop, precision, flags, received, attrs, odometer, hours, fuel_used)
     VALUES (@source, @time, @lat, @lng, @alt, @speed, @course, @satellites, @hdop, @precision, @flags, @received, @attrs, @odometer, @hours, @fuel_used)`,
  );
  db.transaction(() => {
    for (const source of SOURCES) {
      db.prepare("INSERT INTO sources (id, device_id, protocol, tariff_id, creation_date) VALUES (?, ?, 'teltonika', 1, ?)").run(source, `dev-${source}`, T0);
      const rows = fixesOf(source);
      fixes.set(source, rows);
      for (const r of rows) put.run({ source, ...r });
    }
  })();
  db.close();
  return { dir, file, fixes };
}

/** Database and WAL on disk (after a store closed: the WAL is checkpointed and removed). */
const onDisk = (file: string) => statSync(file).size + (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
const readAll = (db: ReturnType<typeof openDatabase>, source: number) => new FixChunkStore(db).readFixes(source, 0, Number.MAX_SAFE_INTEGER);

describe('npm run fsm -- compact', () => {
  let seeded: ReturnType<typeof seed>;
  beforeAll(() => void (seeded = seed()));

  it('prints progress, compacts every fix past the horizon and the database file shrinks; every fix reads back identical', () => {
    const before = onDisk(seeded.file);
    const r = fsm(seeded.dir, 'compact');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^compact: \d\/3 trackers, [\d,]+\/[\d,]+ fixes into [\d,]+ chunks \([\d.]+ MiB\)$/m);
    expect(r.stderr).toContain('compact: 3/3 trackers');
    const total = [...seeded.fixes.values()].reduce((n, f) => n + f.length, 0);
    expect(r.stdout).toMatch(new RegExp(`^compaction done in [\\d.]+ s: 3 trackers, ${total.toLocaleString('en')} fixes into [\\d,]+ chunks \\([\\d.]+ MiB\\); database [\\d.]+ MiB before, [\\d.]+ MiB after; [\\d.]+ MiB given back to the file system\\n$`));
    const after = onDisk(seeded.file);
    // (About 0.7 MiB of it is the empty schema: a page per table and index.)
    expect(after).toBeLessThan(before / 2);
    const db = openDatabase(seeded.file);
    try {
      expect(db.prepare('SELECT count(*) FROM fixes').pluck().get()).toBe(0);
      // One UTC day at most per chunk, at most 4096 fixes.
      for (const c of db.prepare('SELECT first_time, last_time, count FROM fix_chunks').all() as Array<{ first_time: number; last_time: number; count: number }>) {
        expect(Math.floor(c.first_time / DAY_MS)).toBe(Math.floor(c.last_time / DAY_MS));
        expect(c.count).toBeLessThanOrEqual(4096);
      }
      for (const source of SOURCES) expect(readAll(db, source)).toEqual(seeded.fixes.get(source));
    } finally {
      db.close();
    }
    // Again: nothing left to do.
    const again = fsm(seeded.dir, 'compact', '--json');
    expect(again.json).toMatchObject({ fixes: 0, chunks: 0 });
  });

  it('retention drops whole chunks and re-encodes the one reaching over its bound; the rest reads back identical', async () => {
    const store = openStore(seeded.file);
    const db = openDatabase(seeded.file);
    try {
      const now = Date.now();
      const p = await runRetention({ store, now: () => now }, { days: 5, stepRows: 1000, pauseMs: 0 });
      const keep = now - 5 * DAY_MS;
      const gone = [...seeded.fixes.values()].reduce((n, f) => n + f.filter((r) => r.time < keep).length, 0);
      expect(p.deleted.fixes).toBe(gone);
      for (const source of SOURCES) {
        expect(readAll(db, source)).toEqual(seeded.fixes.get(source)!.filter((r) => r.time >= keep));
        expect(db.prepare('SELECT count(*) FROM fix_chunks WHERE source_id = ? AND first_time < ?').pluck().get(source, keep)).toBe(0);
      }
    } finally {
      db.close();
      store.close();
    }
  });
});

describe('a compaction killed mid-run', () => {
  it('loses nothing: every fix is a row or in a chunk, identical, and the file passes its check', async () => {
    const seeded = seed();
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'compact'], { cwd: root, env: { ...process.env, FSM_DATA_DIR: seeded.dir, FSM_COMPACT_PAUSE_MS: '300' } });
    try {
      await new Promise<void>((resolve, reject) => {
        let err = '';
        child.stderr.on('data', (d) => {
          err += String(d);
          if (/compact: \d\/3 trackers, [1-9]/.test(err)) resolve();
        });
        child.once('exit', () => reject(new Error(`exited before a step: ${err}`)));
      });
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    } finally {
      child.kill('SIGKILL');
    }
    const db = openDatabase(seeded.file);
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.prepare('SELECT count(*) FROM fix_chunks').pluck().get()).toBeGreaterThan(0);
      expect(db.prepare('SELECT count(*) FROM fixes').pluck().get()).toBeGreaterThan(0);
      for (const source of SOURCES) expect(readAll(db, source)).toEqual(seeded.fixes.get(source));
    } finally {
      db.close();
    }
  });
});
