/**
 * The deployment files stay in step with the code (issue 15): deploy/fsm.env.example and the
 * README's Settings table list every setting src/config.ts reads, the example's defaults are the
 * real defaults, the systemd unit runs what `npm start` runs and stops within its time, and
 * docs/operations.md describes every metric /metrics exports.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { portVariable, PROTOCOLS } from '../../protocols/index.ts';
import { Ops } from '../../src/api/ops.ts';
import { loadConfig } from '../../src/config.ts';
import { SERVER_NODE_ARGS } from '../../src/server-process.ts';
import type { Store } from '../../src/store/index.ts';

const read = (f: string) => readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8');

/** Every variable src/config.ts reads: by name in its source, and one port per registered protocol. */
function settings(): { general: string[]; ports: string[] } {
  const src = read('src/config.ts');
  const general = [...new Set([...src.matchAll(/env\.(FSM_[A-Z0-9_]+)|'(FSM_[A-Z0-9_]+)'/g)].map((m) => m[1] ?? m[2]))].sort();
  return { general, ports: [...PROTOCOLS.keys()].map(portVariable) };
}

/** `NAME=value` lines of the example; `#NAME=value` shows a default. */
function example(): { active: Map<string, string>; defaults: Map<string, string> } {
  const active = new Map<string, string>();
  const defaults = new Map<string, string>();
  for (const line of read('deploy/fsm.env.example').split('\n')) {
    const m = /^(#?)(FSM_[A-Z0-9_]+)=(.*)$/.exec(line);
    if (!m) continue;
    const into = m[1] ? defaults : active;
    expect(into.has(m[2]) || (m[1] ? active : defaults).has(m[2]), `${m[2]} listed twice`).toBe(false);
    into.set(m[2], m[3]);
  }
  return { active, defaults };
}

describe('deploy/fsm.env.example', () => {
  it('lists every setting src/config.ts reads, and nothing else', () => {
    const { general, ports } = settings();
    expect(general.length).toBeGreaterThan(40);
    const { active, defaults } = example();
    const listed = [...active.keys(), ...defaults.keys()].sort();
    expect(listed).toEqual([...general, ...ports].sort());
  });

  it('shows the real defaults: setting every commented value changes nothing', () => {
    const { defaults } = example();
    expect(loadConfig(Object.fromEntries(defaults))).toEqual(loadConfig({}));
    // Each protocol's port is its registered default.
    for (const [name, p] of PROTOCOLS) expect(defaults.get(portVariable(name))).toBe(String(p.defaultPort));
  });

  it('sets only the data directory, the one the unit lets the service write', () => {
    const { active } = example();
    expect([...active]).toEqual([['FSM_DATA_DIR', '/var/lib/fsm']]);
    expect(read('deploy/fsm.service')).toMatch(/^ReadWritePaths=\/var\/lib\/fsm$/m);
  });
});

describe("README's Settings table", () => {
  it('has a row for every setting (protocol ports in the FSM_<PROTOCOL>_PORT row)', () => {
    const readme = read('README.md');
    const table = readme.slice(readme.indexOf('## Settings'), readme.indexOf('\n## ', readme.indexOf('## Settings') + 1));
    const rows = table.split('\n').filter((l) => l.startsWith('| `'));
    const named = new Set(rows.flatMap((r) => [...r.split('|')[1].matchAll(/`(FSM_[A-Z0-9_<>]+)`/g)].map((m) => m[1])));
    expect(settings().general.filter((v) => !named.has(v))).toEqual([]);
    expect(named.has('FSM_<PROTOCOL>_PORT')).toBe(true);
  });
});

describe('deploy/fsm.service', () => {
  const unit = read('deploy/fsm.service');
  const value = (key: string) => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]);

  it('runs what npm start runs, as its own user, with the settings file', () => {
    expect(value('ExecStart')).toEqual([`/usr/bin/node ${SERVER_NODE_ARGS.join(' ')}`]);
    const pkg = JSON.parse(read('package.json')) as { scripts: { start: string } };
    expect(pkg.scripts.start).toBe(`node ${SERVER_NODE_ARGS.join(' ')}`);
    expect(value('User')).toEqual(['fsm']);
    expect(value('WorkingDirectory')).toEqual(['/opt/fsm']);
    expect(value('EnvironmentFile')).toEqual(['/etc/fsm/fsm.env']);
  });

  it('stops gracefully: SIGTERM, with more time than the stop budget; restarts on failure', () => {
    expect(value('KillSignal')).toEqual(['SIGTERM']);
    expect(Number(value('TimeoutStopSec')[0])).toBeGreaterThanOrEqual(loadConfig({}).gateway.shutdownSeconds + 20);
    expect(value('Restart')).toEqual(['on-failure']);
  });

  it('allows many device connections and is hardened', () => {
    expect(Number(value('LimitNOFILE')[0])).toBeGreaterThanOrEqual(65536);
    expect(value('NoNewPrivileges')).toEqual(['yes']);
    expect(value('ProtectSystem')).toEqual(['strict']);
    expect(value('PrivateTmp')).toEqual(['yes']);
  });
});

describe('docs/operations.md', () => {
  it('describes every fsm_ metric with its type', () => {
    const docs = read('docs/operations.md');
    const config = loadConfig({ FSM_DATA_DIR: '/nonexistent' });
    const ops = new Ops({ config, store: {} as Store, now: Date.now, processMetrics: false });
    // The registry's metrics as declared (nothing is collected: no database here).
    const metrics = (ops.registry.getMetricsAsArray() as unknown as Array<{ name: string; type: string }>).filter((m) => m.name.startsWith('fsm_'));
    expect(metrics.length).toBe(15);
    for (const m of metrics) expect(docs, m.name).toMatch(new RegExp(`\\| \`${m.name}\` \\| ${m.type} \\|`));
  });
});
