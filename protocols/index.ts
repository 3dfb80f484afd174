/**
 * The protocol registry: every protocol the gateway listens for, by name, in name order. Each
 * module declares its name, default port and transports once; the list itself is ./registered.ts.
 */
import type { Protocol } from './types.ts';
import * as registered from './registered.ts';

export const PROTOCOLS: ReadonlyMap<string, Protocol> = new Map(
  Object.values(registered)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((p) => [p.name, p]),
);

export function protocolByName(name: string): Protocol | undefined {
  return PROTOCOLS.get(name);
}

/** The environment variable that sets a protocol's port (`FSM_TELTONIKA_PORT`, ...). */
export function portVariable(name: string): string {
  return `FSM_${name.toUpperCase()}_PORT`;
}
