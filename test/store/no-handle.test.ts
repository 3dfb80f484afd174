/**
 * Issue 9: all SQL is in src/store and the store does not hand out its database handle. Outside
 * src/store no file reads `store.db`,
 * and nothing outside src/store imports better-sqlite3 except tests' own connections (test/helpers/sql.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
function files(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : files(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

describe('the store keeps its handle', () => {
  it('no file outside src/store reads store.db', () => {
    const users = ['src', 'workers', 'bench', 'test']
      .flatMap(files)
      .map((f) => relative(root, join(root, f)))
      .filter((f) => !f.startsWith('src/store/') && f !== 'test/store/no-handle.test.ts')
      .filter((f) => /\bstore\.db\b/.test(readFileSync(join(root, f), 'utf8')));
    expect(users).toEqual([]);
  });
  it('no SQL text outside src/store (src/ and workers/)', () => {
    const sql = /\b(SELECT\s+[\w*(]|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|ORDER\s+BY\s+[\w.]+\s+(ASC|DESC))\b/;
    const offenders = ['src', 'workers']
      .flatMap(files)
      .filter((f) => !f.startsWith('src/store/'))
      .filter((f) => sql.test(readFileSync(join(root, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
  it('only src/store/sqlite.ts loads the SQLite binding (it picks the one that works on the running Node)', () => {
    const loaders = ['src', 'workers', 'bench', 'test']
      .flatMap(files)
      .filter((f) => f !== 'src/store/sqlite.ts' && f !== 'test/store/no-handle.test.ts')
      .filter((f) => /from 'better-sqlite3(-napi)?'|require\('better-sqlite3/.test(readFileSync(join(root, f), 'utf8')));
    expect(loaders).toEqual([]);
  });
});
