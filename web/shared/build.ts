/**
 * The build steps the console (web/console/build.ts) and the field app (web/app/build.ts) share:
 * the fingerprint that lets `--if-needed` skip a build nothing changed for, the brotli/gzip copies
 * the server sends to browsers that take them, and a lock so that only one process builds an app
 * at a time (test files run in parallel and each asks for a build).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** web/shared itself: every app's build reads it. */
export const sharedDir = fileURLToPath(new URL('.', import.meta.url));
const lockFile = join(sharedDir, '..', '..', 'package-lock.json');

/**
 * The names, sizes and times of every file under `dirs` (without builds, packages and locks), with the
 * lock file's time: a change to any of them makes a new fingerprint.
 */
export function fingerprint(base: string, dirs: string[]): string {
  const h = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name === 'dist' || name === 'node_modules' || name === '.build-lock') continue;
      const p = join(dir, name);
      const s = statSync(p);
      if (s.isDirectory()) walk(p);
      else h.update(`${relative(base, p)} ${s.size} ${s.mtimeMs}\n`);
    }
  };
  for (const dir of dirs) walk(dir);
  if (existsSync(lockFile)) h.update(`lock ${statSync(lockFile).mtimeMs}`);
  return h.digest('hex');
}

/** Whether the build in `dist` was made from the files of this fingerprint (its stamp file). */
export function upToDate(dist: string, stamp: string): boolean {
  const stampFile = join(dist, '.build-stamp');
  return existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp && existsSync(join(dist, 'index.html'));
}

export function writeStamp(dist: string, stamp: string): void {
  writeFileSync(join(dist, '.build-stamp'), stamp);
}

/** Brotli and gzip copies beside each text file of 1 KiB or more (the server picks one by Accept-Encoding). */
export function precompress(dir: string): void {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      precompress(p);
      continue;
    }
    if (!/\.(js|css|html|json|svg|webmanifest)$/.test(name) || statSync(p).size < 1024) continue;
    const data = readFileSync(p);
    writeFileSync(`${p}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }));
    writeFileSync(`${p}.gz`, gzipSync(data, { level: 9 }));
  }
}

/** Whether the process that holds the lock is gone (a build killed half-way). */
function lockIsStale(lockDir: string): boolean {
  try {
    const pid = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
    process.kill(pid, 0);
    return Date.now() - statSync(lockDir).mtimeMs > 10 * 60_000;
  } catch (e) {
    // No pid file yet (just made) is not stale; a pid that does not exist is.
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * One build of an app at a time across processes: the lock is a directory `.build-lock` in the app's
 * folder, made atomically, holding the builder's pid; a dead builder's lock is taken over.
 */
export async function locked<T>(appDir: string, work: () => Promise<T>): Promise<T> {
  const lockDir = join(appDir, '.build-lock');
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      break;
    } catch {
      if (lockIsStale(lockDir)) rmSync(lockDir, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}
