/**
 * A migrated empty database, made once per test process and copied into each new test server's
 * data directory: running the migrations on every start cost about a second each (issue 24, a
 * faster suite). The copy is byte for byte what `openStore` makes of an empty file.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/index.ts';

let template: string | undefined;

/** Puts a freshly migrated, empty database at `file` (which must not exist yet). */
export function copyMigratedDatabase(file: string): void {
  if (!template) {
    const dir = mkdtempSync(join(tmpdir(), 'fsm-template-'));
    template = join(dir, 'fsm.sqlite');
    openStore(template).close(); // closing checkpoints the WAL into the file
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  copyFileSync(template, file);
}
