/**
 * Configuration: every setting has an environment variable and a default. Read and validated
 * once at start (`loadConfig`), frozen, then passed explicitly; nothing below main/cli reads
 * `process.env`.
 */
import { resolve } from 'node:path';

/** Conventional ports of the listeners (the ports tracker fleets are already configured for). */
export const DEFAULT_PROTOCOL_PORTS: Readonly<Record<string, number>> = Object.freeze({
  teltonika: 5027,
  gt06: 5023,
  h02: 5013,
  gl200: 5004,
  gps103: 5001,
  tk103: 5002,
  meitrack: 5020,
  suntech: 5011,
  jt808: 5015,
  ruptela: 5046,
  wialon: 5039,
  osmand: 5055,
  watch: 5093,
  galileo: 5034,
  egts: 5162,
});

export interface Config {
  dataDir: string;
  dbFile: string;
  http: { host: string; port: number; bodyLimit: number };
  /** Protocol name -> port (0 = ephemeral) or null when disabled (`off`). */
  protocolPorts: Record<string, number | null>;
  gatewayHost: string;
  publicUrl: string | null;
  mail: { smtpUrl: string | null; from: string; outboxDir: string };
  auth: {
    sessionTtlDays: number;
    maxSessionsPerUser: number;
    loginMaxFailures: number;
    addressMaxFailures: number;
    failureWindowMinutes: number;
    activationIntervalMinutes: number;
  };
  logLevel: string;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  const v = Number(raw);
  if (v < min || v > max) throw new ConfigError(`${name} must be from ${min} to ${max}, got ${v}`);
  return v;
}

function port(env: Env, name: string, def: number): number | null {
  const raw = env[name];
  if (raw !== undefined && raw.trim().toLowerCase() === 'off') return null;
  return int(env, name, def, 0, 65535);
}

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const dataDir = resolve(env.FSM_DATA_DIR || 'data');
  const protocolPorts: Record<string, number | null> = {};
  for (const [name, def] of Object.entries(DEFAULT_PROTOCOL_PORTS)) protocolPorts[name] = port(env, `FSM_${name.toUpperCase()}_PORT`, def);
  const level = env.FSM_LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level)) throw new ConfigError(`FSM_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "${level}"`);
  const cfg: Config = {
    dataDir,
    dbFile: resolve(dataDir, 'fsm.sqlite'),
    http: {
      host: env.FSM_HTTP_HOST || '0.0.0.0',
      port: port(env, 'FSM_HTTP_PORT', 8080) ?? 8080,
      bodyLimit: int(env, 'FSM_BODY_LIMIT', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    },
    protocolPorts,
    gatewayHost: env.FSM_GATEWAY_HOST || '0.0.0.0',
    publicUrl: env.FSM_PUBLIC_URL || null,
    mail: {
      smtpUrl: env.FSM_SMTP_URL || null,
      from: env.FSM_MAIL_FROM || 'fsm@localhost',
      outboxDir: resolve(dataDir, 'outbox'),
    },
    auth: {
      sessionTtlDays: int(env, 'FSM_SESSION_TTL_DAYS', 30, 1, 3650),
      maxSessionsPerUser: int(env, 'FSM_MAX_SESSIONS', 100, 1, 100000),
      loginMaxFailures: int(env, 'FSM_LOGIN_MAX_FAILURES', 10, 1, 100000),
      addressMaxFailures: int(env, 'FSM_ADDRESS_MAX_FAILURES', 100, 1, 1000000),
      failureWindowMinutes: int(env, 'FSM_LOGIN_WINDOW_MINUTES', 15, 1, 1440),
      activationIntervalMinutes: int(env, 'FSM_ACTIVATION_INTERVAL_MINUTES', 5, 0, 1440),
    },
    logLevel: level,
  };
  return deepFreeze(cfg);
}

function deepFreeze<T>(o: T): T {
  for (const v of Object.values(o as object)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(o);
}
