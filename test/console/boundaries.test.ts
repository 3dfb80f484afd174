/**
 * The console is a client of the public API (issue 26, docs/console.md): nothing under web/ imports
 * the server's code (src/, protocols/, workers/), and the server imports nothing from web/ but the
 * path of its build (src/config.ts) and the build script the tests call.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

function files(dir: string, ext: RegExp): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p, ext));
    else if (ext.test(name)) out.push(p);
  }
  return out;
}

/** Relative import specifiers of a file, resolved to paths from the project's root. */
function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]);
  return specs.map((s) => relative(root, resolve(dirname(file), s)));
}

test('web/ imports nothing from the server', () => {
  const web = files(join(root, 'web'), /\.(ts|tsx)$/);
  expect(web.length).toBeGreaterThan(10);
  const crossing = web.flatMap((f) => relativeImports(f).filter((p) => /^(src|protocols|workers)\//.test(p)).map((p) => `${relative(root, f)} -> ${p}`));
  expect(crossing).toEqual([]);
});

test('the server imports nothing from web/', () => {
  const server = files(join(root, 'src'), /\.ts$/).concat(files(join(root, 'workers'), /\.ts$/), files(join(root, 'protocols'), /\.ts$/));
  const crossing = server.flatMap((f) => relativeImports(f).filter((p) => p.startsWith('web/')).map((p) => `${relative(root, f)} -> ${p}`));
  expect(crossing).toEqual([]);
});
