/**
 * Device connection limits that fit the process's open-file limit: every connection holds a file
 * descriptor, and so do the API's connections, the SQLite files (per thread), the worker threads'
 * event loops and the listeners. What the started server already holds is counted, and headroom is
 * kept on top for what grows later (API connections, report and upload threads started on demand),
 * so that idle device sockets can never starve the API.
 */
import type { ConnectionLimits } from './core.ts';

/** Headroom kept above what the started server holds: a quarter of the limit, 128 to 1024. */
export function reservedDescriptors(openFileLimit: number): number {
  return Math.min(1024, Math.max(128, Math.floor(openFileLimit / 4)));
}

/** Device connections in total when FSM_GATEWAY_MAX_CONNECTIONS is not set: as many as fit, at most this. */
export const DEFAULT_MAX_CONNECTIONS = 100_000;

export interface ConnectionSettings {
  identifySeconds: number;
  frameSeconds: number;
  /** null: not set (as many as the open-file limit allows, at most DEFAULT_MAX_CONNECTIONS). */
  maxConnections: number | null;
  maxConnectionsPerAddress: number;
}

/**
 * The limits to use, and what to tell the operator. `openFileLimit` undefined: unknown (not
 * Linux), the settings apply as they are.
 */
export function connectionLimits(
  settings: ConnectionSettings,
  openFileLimit: number | undefined,
  /** Descriptors the process holds now (listeners, databases, threads); 0 when unknown. */
  inUse = 0,
): { limits: ConnectionLimits; notes: string[] } {
  const limits: ConnectionLimits = {
    identifyMs: settings.identifySeconds * 1000,
    frameMs: settings.frameSeconds * 1000,
    maxConnections: settings.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    maxConnectionsPerAddress: settings.maxConnectionsPerAddress,
  };
  if (openFileLimit === undefined || !Number.isFinite(openFileLimit)) {
    return { limits, notes: [`Device connections: at most ${limits.maxConnections} in total, ${limits.maxConnectionsPerAddress} per address (open-file limit ${openFileLimit === undefined ? 'unknown' : 'unlimited'})`] };
  }
  const headroom = reservedDescriptors(openFileLimit);
  const fits = Math.max(0, openFileLimit - inUse - headroom);
  const notes: string[] = [];
  const held = inUse > 0 ? `, ${inUse} are held by the started server` : '';
  const why = `the open-file limit is ${openFileLimit} (ulimit -n)${held} and ${headroom} are kept for the API, the database and worker threads`;
  if (limits.maxConnections > fits) {
    // Only a value the operator set is worth a warning; the default simply fits itself.
    if (settings.maxConnections !== null) notes.push(`FSM_GATEWAY_MAX_CONNECTIONS=${limits.maxConnections} exceeds what fits: ${why}; using ${fits}`);
    limits.maxConnections = fits;
  }
  if (limits.maxConnections === 0) notes.push(`No device connection fits: ${why}; raise the open-file limit (ulimit -n, LimitNOFILE= in the systemd unit)`);
  if (limits.maxConnectionsPerAddress > limits.maxConnections) {
    notes.push(`FSM_GATEWAY_MAX_CONNECTIONS_PER_ADDRESS=${limits.maxConnectionsPerAddress} exceeds the total of ${limits.maxConnections}; using ${limits.maxConnections}`);
    limits.maxConnectionsPerAddress = limits.maxConnections;
  }
  notes.push(`Device connections: at most ${limits.maxConnections} in total, ${limits.maxConnectionsPerAddress} per address (open-file limit ${openFileLimit})`);
  return { limits, notes };
}

/** The soft open-file limit from a /proc/<pid>/limits text; undefined when absent, Infinity for unlimited. */
export function parseOpenFileLimit(procLimits: string): number | undefined {
  const m = /^Max open files\s+(\S+)/m.exec(procLimits);
  if (!m) return undefined;
  if (m[1] === 'unlimited') return Infinity;
  const n = Number(m[1]);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

