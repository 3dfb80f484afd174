import { readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Protocol } from '../../protocols/types.ts';

const protocolsDir = join(dirname(fileURLToPath(import.meta.url)), '../../protocols');
/** Files in protocols/ that are shared helpers, not protocols. */
const NOT_PROTOCOLS = new Set(['types.ts', 'attributes.ts', 'binary.ts', 'index.ts', 'text.ts', 'last-fix.ts']);

/** Every protocol module in protocols/ (each exports `protocol`), optionally narrowed by PROTOCOL=a,b. */
export async function loadProtocols(): Promise<Protocol[]> {
  const only = process.env.PROTOCOL?.split(',').filter(Boolean);
  const names = readdirSync(protocolsDir)
    .filter((f) => f.endsWith('.ts') && !NOT_PROTOCOLS.has(f))
    .map((f) => f.slice(0, -3))
    .filter((n) => !only || only.includes(n))
    .sort();
  const out: Protocol[] = [];
  for (const n of names) {
    const mod = (await import(join(protocolsDir, `${n}.ts`))) as { protocol?: Protocol };
    if (mod.protocol) out.push(mod.protocol);
  }
  return out;
}
