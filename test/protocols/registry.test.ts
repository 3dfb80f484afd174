/**
 * One protocol registry (issue 9): every protocol module is registered under its own name, and the
 * config's ports, the gateway's listeners, the CLI's check, docs/protocols.md's table and README all
 * follow it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROTOCOLS, portVariable } from '../../protocols/index.ts';
import * as registered from '../../protocols/registered.ts';
import type { Protocol } from '../../protocols/types.ts';
import { PROTOCOLS_DOC, protocolTable, withProtocolTable } from '../../src/protocol-docs.ts';
import { DEFAULT_PROTOCOL_PORTS, loadConfig } from '../../src/config.ts';
import { loadProtocols } from './load.ts';
import { capturesDir } from './harness.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const protocolsDir = join(root, 'protocols');

describe('the registry', () => {
  it('registers each protocol under its own name, once, on its own port', () => {
    for (const [key, p] of Object.entries(registered)) expect(p.name).toBe(key);
    expect(PROTOCOLS.size).toBe(Object.keys(registered).length);
    const ports = [...PROTOCOLS.values()].map((p) => p.defaultPort);
    expect(new Set(ports).size).toBe(ports.length);
  });

  it('holds every module in protocols/ that exports a protocol (a file, or a folder with index.ts)', async () => {
    const modules = readdirSync(protocolsDir).flatMap((f) => {
      const path = join(protocolsDir, f);
      if (statSync(path).isDirectory()) return [join(path, 'index.ts')];
      return f.endsWith('.ts') ? [path] : [];
    });
    const found: string[] = [];
    for (const m of modules) {
      const mod = (await import(m)) as { protocol?: Protocol };
      if (mod.protocol) found.push(mod.protocol.name);
    }
    expect(found.sort()).toEqual([...PROTOCOLS.keys()].sort());
  });

  it('listens on each protocol\'s conventional port and transports (the captures\' INDEX.md)', () => {
    const index = readFileSync(join(capturesDir, 'INDEX.md'), 'utf8');
    const conventional = new Map([...index.matchAll(/^\| ([a-z0-9]+) \| (\d+) \| ([a-z, ]+?)(?: \((HTTP|MQTT)\))? \|$/gm)].map((m) => [m[1], { port: Number(m[2]), listens: m[3], mqtt: m[4] === 'MQTT' }]));
    for (const [name, p] of PROTOCOLS) {
      const c = conventional.get(name);
      expect(c, `${name} in INDEX.md`).toBeDefined();
      expect({ name, port: DEFAULT_PROTOCOL_PORTS[name] }).toEqual({ name, port: c!.port });
      // Each transport INDEX.md lists is served (HTTP protocols listen over TCP as HTTP).
      if (c!.mqtt) expect(p.transports, `${name} over MQTT`).toEqual(['mqtt']);
      else for (const t of c!.listens.split(', ')) expect(t === 'tcp' ? p.transports.some((x) => x === 'tcp' || x === 'http') : p.transports.includes(t as 'udp'), `${name} over ${t}`).toBe(true);
    }
  });

  it('gives the config a port and an FSM_<NAME>_PORT variable for every registered protocol', () => {
    expect(loadConfig({}).protocolPorts).toEqual(Object.fromEntries([...PROTOCOLS.values()].map((p) => [p.name, p.defaultPort])));
    const env = Object.fromEntries([...PROTOCOLS.keys()].map((name, i) => [portVariable(name), String(6000 + i)]));
    expect(env.FSM_TELTONIKA_PORT).toBeDefined();
    expect(loadConfig({ ...env, FSM_GT06_PORT: 'off' }).protocolPorts).toEqual(Object.fromEntries([...PROTOCOLS.keys()].map((name, i) => [name, name === 'gt06' ? null : 6000 + i])));
  });

  it('is what the protocol tests load', async () => {
    expect((await loadProtocols()).map((p) => p.name)).toEqual([...PROTOCOLS.keys()]);
  });
});

describe('documentation', () => {
  it("docs/protocols.md's table is the registry's (regenerate with npm run docs:protocols)", () => {
    const doc = readFileSync(PROTOCOLS_DOC, 'utf8');
    expect(withProtocolTable(doc)).toBe(doc);
    for (const p of PROTOCOLS.values()) expect(protocolTable()).toContain(`| ${p.name} | ${p.defaultPort} | ${p.transports.join(', ')} |`);
  });

  it('README names no protocol port other than the registry gives', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    for (const [, name, port] of readme.matchAll(/\b([a-z0-9]+)[ :]+(5\d{3})\b/g)) {
      if (PROTOCOLS.has(name)) expect(`${name} ${port}`).toBe(`${name} ${PROTOCOLS.get(name)!.defaultPort}`);
    }
    expect(readme).toContain('docs/protocols.md');
  });
});

describe('size', () => {
  it('keeps every file in protocols/ under 800 lines (large decoders are folders)', () => {
    const files = readdirSync(protocolsDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const long = files.map((f) => [f, readFileSync(join(protocolsDir, f), 'utf8').split('\n').length] as const).filter(([, n]) => n > 800);
    expect(long).toEqual([]);
  });
});
