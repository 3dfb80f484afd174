/**
 * Builds the field app into web/app/dist (git-ignored): the Vite bundle, the home-screen icons
 * (PNG, rendered from public/icon.svg with sharp) and brotli/gzip copies (the steps both apps share
 * are in web/shared/build.ts). `--if-needed` (npm install, npm start) skips the work when nothing it
 * reads changed since the last build; `--soft` reports a failed build without failing the install
 * or start.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { build } from 'vite';
import viteConfig from './vite.config.ts';
import { fingerprint, locked, precompress, sharedDir, upToDate, writeStamp } from '../shared/build.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const dist = join(here, 'dist');

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

export function buildFieldApp(opts: { ifNeeded?: boolean; quiet?: boolean } = {}): Promise<void> {
  return locked(here, () => buildOnce(opts));
}

async function buildOnce(opts: { ifNeeded?: boolean; quiet?: boolean }): Promise<void> {
  const print = opts.quiet ? () => {} : (s: string) => console.log(s);
  const stamp = fingerprint(here, [here, sharedDir]);
  if (opts.ifNeeded && upToDate(dist, stamp)) {
    print('field app: build is up to date');
    return;
  }
  const started = Date.now();
  await build({ ...viteConfig, configFile: false });
  const svg = readFileSync(join(here, 'public', 'icon.svg'));
  for (const size of [192, 512]) await sharp(svg, { density: 300 }).resize(size, size).png().toFile(join(dist, `icon-${size}.png`));
  precacheList(dist);
  precompress(dist);
  writeStamp(dist, stamp);
  print(`field app: built in ${((Date.now() - started) / 1000).toFixed(1)} s into ${relative(process.cwd(), dist) || dist}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const soft = process.argv.includes('--soft');
  buildFieldApp({ ifNeeded: process.argv.includes('--if-needed') }).catch((e) => {
    console.error(`field app: build failed: ${e instanceof Error ? e.message : e}${soft ? ' (the server still starts; run npm run build:app to retry)' : ''}`);
    process.exit(soft ? 0 : 1);
  });
}
