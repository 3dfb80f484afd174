/**
 * The engines the store contract suite runs against (docs/store.md#contract-suite). Every test file
 * in this folder runs once per engine with `describe.each(engines())`, each test on a fresh store.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../src/store/index.ts';
import type { DataStore } from '../../../src/store/contract.ts';

export interface Engine {
  name: string;
  /** A new, empty store (migrated) and how to throw it away. */
  open(): Promise<{ data: DataStore; dispose(): Promise<void> }>;
}

/** A migrated empty database, made once per test file and copied for each test (migrating takes a second). */
let template: string | undefined;
function sqliteTemplate(): string {
  if (!template) {
    const dir = mkdtempSync(join(tmpdir(), 'fsm-contract-template-'));
    template = join(dir, 'fsm.db');
    openStore(template).close(); // closing checkpoints the WAL into the file
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return template;
}

const sqlite: Engine = {
  name: 'sqlite',
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'fsm-contract-'));
    copyFileSync(sqliteTemplate(), join(dir, 'fsm.db'));
    const store = openStore(join(dir, 'fsm.db'));
    return {
      data: store.data,
      async dispose() {
        store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

export function engines(): Engine[] {
  return [sqlite];
}
