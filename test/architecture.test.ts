/**
 * The layer rules (docs/architecture.md, .dependency-cruiser.cjs) hold for the whole tree, and they
 * bite: a small tree with one forbidden import per rule is refused by the same configuration.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const depcruise = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const run = promisify(execFile);

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

async function cruise(cwd: string, config: string): Promise<Violation[]> {
  const { stdout } = await run(process.execPath, [depcruise, '--config', config, '--output-type', 'json', 'src', 'protocols', 'workers'], { cwd, maxBuffer: 64 * 1024 * 1024 }).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe('layers', () => {
  it('no module imports a layer above its own (type-only imports included), no cycles', async () => {
    const violations = await cruise(root, join(root, '.dependency-cruiser.cjs'));
    expect(violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
  });

  const tmp = mkdtempSync(join(tmpdir(), 'fsm-layers-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('refuses each kind of forbidden import', async () => {
    const files: Record<string, string> = {
      'src/core/point.ts': "import type { Row } from '../store/rows.ts';\nexport type P = Row;\n",
      'src/store/rows.ts': "import { x } from '../telemetry/stage.ts';\nexport type Row = number;\nexport const y = x;\n",
      'src/telemetry/stage.ts': "import { h } from '../api/kernel.ts';\nexport const x = h;\n",
      'src/api/kernel.ts': "import { g } from '../gateway/chat.ts';\nexport const h = g;\n",
      'src/gateway/chat.ts': "import { m } from '../main.ts';\nimport { o } from '../api/other.ts';\nexport const g = m + o;\n",
      'src/api/other.ts': 'export const o = 1;\n',
      'src/main.ts': 'export const m = 1;\n',
      'protocols/foo.ts': "import { q } from '../src/store/q.ts';\nexport const f = q;\n",
      'src/store/q.ts': 'export const q = 1;\n',
      'workers/w.ts': "import { g } from '../src/gateway/chat.ts';\nexport const w = g;\n",
      'src/tracks/a.ts': "import { b } from './b.ts';\nexport const a = 1 + b;\n",
      'src/tracks/b.ts': "import { a } from './a.ts';\nexport const b = 1 + a;\n",
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowImportingTsExtensions: true, noEmit: true } }),
    };
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(tmp, name)), { recursive: true });
      writeFileSync(join(tmp, name), text);
    }
    copyFileSync(join(root, '.dependency-cruiser.cjs'), join(tmp, 'rules.cjs'));
    const found = new Set((await cruise(tmp, 'rules.cjs')).map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`));
    expect([...found].sort()).toEqual(
      [
        'core-imports-nothing: src/core/point.ts -> src/store/rows.ts',
        'store-imports-only-core: src/store/rows.ts -> src/telemetry/stage.ts',
        'domain-not-upwards: src/telemetry/stage.ts -> src/api/kernel.ts',
        'adapters-independent: src/api/kernel.ts -> src/gateway/chat.ts',
        'adapters-independent: src/gateway/chat.ts -> src/api/other.ts',
        'adapters-not-wiring: src/gateway/chat.ts -> src/main.ts',
        'protocols-pure: protocols/foo.ts -> src/store/q.ts',
        'workers-not-adapters: workers/w.ts -> src/gateway/chat.ts',
        'no-circular: src/tracks/a.ts -> src/tracks/b.ts',
      ].sort(),
    );
  });
});
