/**
 * Builds the field app into web/app/dist (git-ignored): the Vite bundle, the home-screen icons
 * (PNG, rendered from public/icon.svg with sharp) and brotli/gzip copies. `--if-needed` (npm install,
 * npm start) skips the work when nothing it reads changed since the last build; `--soft` reports a
 * failed build without failing the install or start.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import sharp from 'sharp';
import { build } from 'vite';
import viteConfig from './vite.config.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const dist = join(here, 'dist');
const stampFile = join(dist, '.build-stamp');

/** The app's own files and the console's API client it shares, with the lock file. */
function fingerprint(): string {
  const h = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name === 'dist' || name === 'node_modules') continue;
      const p = join(dir, name);
      const s = statSync(p);
      if (s.isDirectory()) walk(p);
      else h.update(`${relative(here, p)} ${s.size} ${s.mtimeMs}\n`);
    }
  };
  walk(here);
  walk(join(here, '..', 'console', 'src', 'api'));
  const lock = join(here, '..', '..', 'package-lock.json');
  if (existsSync(lock)) h.update(`lock ${statSync(lock).mtimeMs}`);
  return h.digest('hex');
}

function precompress(dir: string) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) precompress(p);
    else if (/\.(js|css|html|json|svg|webmanifest)$/.test(name) && statSync(p).size >= 1024) {
      const data = readFileSync(p);
      writeFileSync(`${p}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }));
      writeFileSync(`${p}.gz`, gzipSync(data, { level: 9 }));
    }
  }
}

/**
 * The service worker learns the build's hashed assets (its SHELL list), so the app opens offline
 * even if the page was never loaded while the worker was active; the list also changes the worker's
 * bytes with each build, which makes browsers install the new version.
 */
function precacheList(out: string) {
  const assets = readdirSync(join(out, 'assets')).filter((n) => /\.(js|css)$/.test(n)).map((n) => `/app/assets/${n}`);
  const sw = join(out, 'sw.js');
  const text = readFileSync(sw, 'utf8');
  const marked = text.replace(/const SHELL = \[([^\]]*)\];/, (_m, list: string) => `const SHELL = [${list}, ${assets.map((a) => JSON.stringify(a)).join(', ')}];`);
  if (marked === text) throw new Error('sw.js: SHELL list not found');
  writeFileSync(sw, marked);
}

export async function buildFieldApp(opts: { ifNeeded?: boolean; quiet?: boolean } = {}): Promise<void> {
  const print = opts.quiet ? () => {} : (s: string) => console.log(s);
  const stamp = fingerprint();
  if (opts.ifNeeded && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp && existsSync(join(dist, 'index.html'))) {
    print('field app: build is up to date');
    return;
  }
  const started = Date.now();
  await build({ ...viteConfig, configFile: false });
  const svg = readFileSync(join(here, 'public', 'icon.svg'));
  for (const size of [192, 512]) await sharp(svg, { density: 300 }).resize(size, size).png().toFile(join(dist, `icon-${size}.png`));
  precacheList(dist);
  precompress(dist);
  writeFileSync(stampFile, stamp);
  print(`field app: built in ${((Date.now() - started) / 1000).toFixed(1)} s into ${relative(process.cwd(), dist) || dist}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const soft = process.argv.includes('--soft');
  buildFieldApp({ ifNeeded: process.argv.includes('--if-needed') }).catch((e) => {
    console.error(`field app: build failed: ${e instanceof Error ? e.message : e}${soft ? ' (the server still starts; run npm run build:app to retry)' : ''}`);
    process.exit(soft ? 0 : 1);
  });
}
