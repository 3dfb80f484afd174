import { PROTOCOLS } from '../../protocols/index.ts';
import type { Protocol } from '../../protocols/types.ts';

/** Every registered protocol (protocols/registered.ts), optionally narrowed by PROTOCOL=a,b. */
export async function loadProtocols(): Promise<Protocol[]> {
  const only = process.env.PROTOCOL?.split(',').filter(Boolean);
  return [...PROTOCOLS.values()].filter((p) => !only || only.includes(p.name));
}
