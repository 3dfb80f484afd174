/**
 * Configuration: every setting has an environment variable and a default. Read and validated
 * once at start (`loadConfig`), frozen, then passed explicitly; nothing below main/cli reads
 * `process.env`.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import type { GeocoderConfig } from './geocoder/types.ts';
import { PROTOCOLS, portVariable } from '../protocols/index.ts';

/** Conventional ports of the listeners (the ports tracker fleets are already configured for), as each protocol declares them. */
export const DEFAULT_PROTOCOL_PORTS: Readonly<Record<string, number>> = Object.freeze(Object.fromEntries([...PROTOCOLS.values()].map((p) => [p.name, p.defaultPort])));

export interface Config {
  dataDir: string;
  dbFile: string;
  /** redirectOrigins: origins (`https://app.example.com`) redirect_target may lead to, besides the server's own. */
  http: { host: string; port: number; bodyLimit: number; redirectOrigins: string[] };
  /** Protocol name -> port (0 = ephemeral) or null when disabled (`off`). */
  protocolPorts: Record<string, number | null>;
  gateway: {
    host: string;
    idleSeconds: number;
    /** A graceful stop waits at most this long for frames already read to be committed and answered. */
    shutdownSeconds: number;
    /** A connection must identify its device within this time, and complete each frame within frameSeconds. */
    identifySeconds: number;
    frameSeconds: number;
    /** null: not set (as many as the open-file limit allows, src/gateway/limits.ts). */
    maxConnections: number | null;
    maxConnectionsPerAddress: number;
    /** FULL: acknowledged fixes survive power loss too; NORMAL: survive a process crash. */
    synchronous: 'FULL' | 'NORMAL';
    /** An operator's MQTT broker to subscribe to (MQTT protocols), or null. */
    mqttBroker: MqttBrokerConfig | null;
  };
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
  /** The field app's task watch (docs/field-app.md): heartbeat comment interval, how often changes are looked for. */
  app: { heartbeatSeconds: number; watchPollMs: number };
  logLevel: string;
  geocoder: GeocoderConfig;
  /** Worker threads of the telemetry pool. */
  telemetryThreads: number;
  /** CPU priority (nice, 0..19) the telemetry worker threads lower themselves to. */
  telemetryNice: number;
  /** The event log's connection watcher (docs/events.md): silence that counts as a lost connection, how often to check. */
  connection: { lostSeconds: number; checkSeconds: number };
  /** Uploaded files (docs/files.md): per-user storage, time to upload, sweep period. */
  files: { quotaBytes: number; uploadMinutes: number; sweepSeconds: number; uploadIdleSeconds: number };
  /** Retranslators (docs/retranslators.md): reconnect backoff, answer timeout, how often to look for new fixes. */
  forwarding: { backoffMinMs: number; backoffMaxMs: number; timeoutMs: number; pollMs: number; nice: number; urgentBacklog: number; handOff: boolean };
  /** /metrics on the API port (docs/operations.md); with a token, scrapes need `Authorization: Bearer <token>`. */
  metrics: { enabled: boolean; token: string | null };
  /** Tracker reports (docs/reports.md): reports generated at once, queued or running per user, tries before failing. */
  reports: { threads: number; perUser: number; attempts: number };
  /** Retention (docs/operations.md#retention): global limit in days (0: tariffs only), pass interval (0: off), rows per step. */
  retention: { days: number; intervalMinutes: number; stepRows: number; pauseMs: number };
  /**
   * The operator console (docs/console.md): where its build lives, and the map's tile sources. No
   * source set: the offline basemap shipped with the build. styleUrl wins over tilesUrl, tilesUrl
   * over pmtilesFile.
   */
  console: { dir: string; map: ConsoleMapConfig };
  /** The field app (docs/field-app.md, "The app"): where its build lives, served at /app/. */
  fieldApp: { dir: string };
  /** Compaction of old fixes (docs/storage.md): horizon in hours, pass interval (0: off), rest between steps. */
  compaction: { afterHours: number; intervalMinutes: number; pauseMs: number };
}

/** The console's map settings, as the console receives them (GET /console/config.json). */
export interface ConsoleMapConfig {
  /** A MapLibre style (http(s) URL or a path on this server); its sources may use pmtiles:// URLs. */
  styleUrl: string | null;
  /** A raster tile URL template with {z}, {x} and {y} (an OSM tile server). */
  tilesUrl: string | null;
  /** A local .pmtiles file (raster, or vector in the Protomaps basemap schema), served at /console/basemap.pmtiles. */
  pmtilesFile: string | null;
  attribution: string | null;
  maxZoom: number;
}

export class ConfigError extends Error {}

/** Subscription to an operator's broker: each topic filter's single `+` level is the device id. */
export interface MqttBrokerConfig {
  url: string;
  /** Stable across restarts: the broker keeps the session (and unacknowledged messages) under it. */
  clientId: string;
  subscriptions: Array<{ protocol: string; topic: string }>;
}

/** FSM_MQTT_BROKER_URL (mqtt:, mqtts:, ws:, wss:) with FSM_MQTT_TOPICS `protocol=topic,...`. */
function mqttBroker(env: Env): MqttBrokerConfig | null {
  const raw = env.FSM_MQTT_BROKER_URL;
  if (!raw) {
    if (env.FSM_MQTT_TOPICS) throw new ConfigError('FSM_MQTT_TOPICS is set but FSM_MQTT_BROKER_URL is not');
    return null;
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(`FSM_MQTT_BROKER_URL must be an mqtt(s) or ws(s) URL, got "${raw}"`);
  }
  if (!['mqtt:', 'mqtts:', 'ws:', 'wss:'].includes(u.protocol)) throw new ConfigError(`FSM_MQTT_BROKER_URL must be an mqtt(s) or ws(s) URL, got "${raw}"`);
  const subscriptions = (env.FSM_MQTT_TOPICS ?? '').split(',').map((x) => x.trim()).filter(Boolean).map((pair) => {
    const [protocol, topic] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
    if (!pair.includes('=') || !PROTOCOLS.get(protocol)?.transports.includes('mqtt')) throw new ConfigError(`FSM_MQTT_TOPICS: "${pair}" must be <mqtt protocol>=<topic filter> (mqtt protocols: ${[...PROTOCOLS.values()].filter((p) => p.transports.includes('mqtt')).map((p) => p.name).join(', ')})`);
    const levels = topic.split('/');
    if (levels.filter((l) => l === '+').length !== 1 || levels.some((l) => l !== '+' && /[+#]/.test(l)) || levels.includes('#')) throw new ConfigError(`FSM_MQTT_TOPICS: topic "${topic}" must have exactly one + level (the device id) and no #`);
    return { protocol, topic };
  });
  if (!subscriptions.length) throw new ConfigError('FSM_MQTT_BROKER_URL needs FSM_MQTT_TOPICS, e.g. pui=pui/+/report');
  const clientId = env.FSM_MQTT_CLIENT_ID || 'fsm-gateway';
  if (!/^[\x21-\x7e]{1,64}$/.test(clientId)) throw new ConfigError(`FSM_MQTT_CLIENT_ID must be 1 to 64 printable ASCII characters, got "${clientId}"`);
  return { url: raw, clientId, subscriptions };
}

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

function sync(raw: string | undefined): 'FULL' | 'NORMAL' {
  const v = (raw || 'full').toUpperCase();
  if (v !== 'FULL' && v !== 'NORMAL') throw new ConfigError(`FSM_GATEWAY_SYNC must be full or normal, got "${raw}"`);
  return v;
}

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const dataDir = resolve(env.FSM_DATA_DIR || 'data');
  const protocolPorts: Record<string, number | null> = {};
  for (const [name, def] of Object.entries(DEFAULT_PROTOCOL_PORTS)) protocolPorts[name] = port(env, portVariable(name), def);
  const level = env.FSM_LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level)) throw new ConfigError(`FSM_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "${level}"`);
  const cfg: Config = {
    dataDir,
    dbFile: resolve(dataDir, 'fsm.sqlite'),
    http: {
      host: env.FSM_HTTP_HOST || '0.0.0.0',
      port: port(env, 'FSM_HTTP_PORT', 8080) ?? 8080,
      bodyLimit: int(env, 'FSM_BODY_LIMIT', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      redirectOrigins: origins(env, 'FSM_REDIRECT_ORIGINS'),
    },
    protocolPorts,
    gateway: {
      host: env.FSM_GATEWAY_HOST || '0.0.0.0',
      idleSeconds: int(env, 'FSM_GATEWAY_IDLE_SECONDS', 600, 1, 86400),
      shutdownSeconds: int(env, 'FSM_SHUTDOWN_SECONDS', 10, 1, 600),
      identifySeconds: int(env, 'FSM_GATEWAY_IDENTIFY_SECONDS', 30, 1, 3600),
      frameSeconds: int(env, 'FSM_GATEWAY_FRAME_SECONDS', 15, 1, 3600),
      // Not set: as many as the open-file limit allows (src/gateway/limits.ts).
      maxConnections: env.FSM_GATEWAY_MAX_CONNECTIONS ? int(env, 'FSM_GATEWAY_MAX_CONNECTIONS', 0, 1, 1_000_000) : null,
      maxConnectionsPerAddress: int(env, 'FSM_GATEWAY_MAX_CONNECTIONS_PER_ADDRESS', 1000, 1, 1_000_000),
      synchronous: sync(env.FSM_GATEWAY_SYNC),
      mqttBroker: mqttBroker(env),
    },
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
    app: { heartbeatSeconds: int(env, 'FSM_APP_HEARTBEAT_SECONDS', 25, 1, 3600), watchPollMs: int(env, 'FSM_APP_WATCH_POLL_MS', 500, 10, 60_000) },
    logLevel: level,
    geocoder: geocoderConfig(env),
    telemetryThreads: int(env, 'FSM_TELEMETRY_THREADS', Math.max(1, Math.min(4, availableParallelism())), 1, 64),
    telemetryNice: int(env, 'FSM_TELEMETRY_NICE', 10, 0, 19),
    connection: { lostSeconds: int(env, 'FSM_CONNECTION_LOST_SECONDS', 900, 10, 604_800), checkSeconds: int(env, 'FSM_CONNECTION_CHECK_SECONDS', 30, 1, 3600) },
    files: { quotaBytes: int(env, 'FSM_FILE_QUOTA_MB', 1024, 1, 10_000_000) * 1024 * 1024, uploadMinutes: int(env, 'FSM_FILE_UPLOAD_MINUTES', 60, 1, 10080), sweepSeconds: int(env, 'FSM_FILE_SWEEP_SECONDS', 300, 1, 86400), uploadIdleSeconds: int(env, 'FSM_FILE_UPLOAD_IDLE_SECONDS', 60, 1, 3600) },
    forwarding: {
      backoffMinMs: int(env, 'FSM_FORWARD_BACKOFF_MIN_MS', 1000, 10, 3_600_000),
      backoffMaxMs: int(env, 'FSM_FORWARD_BACKOFF_MAX_MS', 60_000, 10, 3_600_000),
      timeoutMs: int(env, 'FSM_FORWARD_TIMEOUT_MS', 30_000, 100, 3_600_000),
      pollMs: int(env, 'FSM_FORWARD_POLL_MS', 100, 1, 60_000),
      nice: int(env, 'FSM_FORWARD_NICE', 10, 0, 19),
      urgentBacklog: int(env, 'FSM_FORWARD_URGENT_BACKLOG', 100_000, 0, 1_000_000_000),
      handOff: onOff(env, 'FSM_FORWARD_HANDOFF', true),
    },
    metrics: { enabled: onOff(env, 'FSM_METRICS', true), token: env.FSM_METRICS_TOKEN?.trim() || null },
    reports: { threads: int(env, 'FSM_REPORT_THREADS', 2, 1, 64), perUser: int(env, 'FSM_REPORTS_PER_USER', 15, 1, 10_000), attempts: int(env, 'FSM_REPORT_ATTEMPTS', 3, 1, 100) },
    retention: {
      days: int(env, 'FSM_RETENTION_DAYS', 0, 0, 36500),
      intervalMinutes: int(env, 'FSM_RETENTION_INTERVAL_MINUTES', 60, 0, 10080),
      stepRows: int(env, 'FSM_RETENTION_STEP_ROWS', 1000, 10, 1_000_000),
      pauseMs: int(env, 'FSM_RETENTION_PAUSE_MS', 10, 0, 10_000),
    },
    fieldApp: { dir: env.FSM_APP_DIR ? resolve(env.FSM_APP_DIR) : fileURLToPath(new URL('../web/app/dist', import.meta.url)) },
    console: {
      dir: env.FSM_CONSOLE_DIR ? resolve(env.FSM_CONSOLE_DIR) : fileURLToPath(new URL('../web/console/dist', import.meta.url)),
      map: {
        styleUrl: styleUrl(env, 'FSM_MAP_STYLE_URL'),
        tilesUrl: tilesUrl(env, 'FSM_MAP_TILES_URL'),
        pmtilesFile: env.FSM_MAP_PMTILES_FILE?.trim() ? resolve(env.FSM_MAP_PMTILES_FILE.trim()) : null,
        attribution: env.FSM_MAP_ATTRIBUTION?.trim() || null,
        maxZoom: int(env, 'FSM_MAP_MAX_ZOOM', 19, 1, 24),
      },
    },
    compaction: {
      afterHours: int(env, 'FSM_COMPACT_AFTER_HOURS', 48, 0, 87_600),
      intervalMinutes: int(env, 'FSM_COMPACT_INTERVAL_MINUTES', 30, 0, 10080),
      pauseMs: int(env, 'FSM_COMPACT_PAUSE_MS', 10, 0, 10_000),
    },
  };
  return deepFreeze(cfg);
}

function onOff(env: Env, name: string, def: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return def;
  if (['on', 'true', '1', 'yes'].includes(raw)) return true;
  if (['off', 'false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be on or off, got "${env[name]}"`);
}

function url(env: Env, name: string): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

/** A MapLibre style: an http(s) URL or an absolute path on this server (`/styles/basic.json`). */
function styleUrl(env: Env, name: string): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  if (raw.startsWith('/') && !raw.startsWith('//')) return raw;
  return url(env, name);
}

/** A raster tile template: an http(s) URL (or a path on this server) with {z}, {x} and {y}. */
function tilesUrl(env: Env, name: string): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  if (!['{z}', '{x}', '{y}'].every((p) => raw.includes(p))) throw new ConfigError(`${name} must be a tile URL template with {z}, {x} and {y}, got "${raw}"`);
  if (raw.startsWith('/') && !raw.startsWith('//')) return raw;
  let u: URL | undefined;
  try {
    u = new URL(raw.replace(/[{}]/g, ''));
  } catch {
    /* reported below */
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) throw new ConfigError(`${name} must be an http(s) tile URL template, got "${raw}"`);
  return raw;
}

/** A comma-separated list of http(s) origins, each normalized (`https://App.example.com/` -> `https://app.example.com`). */
function origins(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .map((raw) => {
      let u: URL | undefined;
      try {
        u = new URL(raw);
      } catch {
        /* reported below */
      }
      if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.pathname !== '/' || u.search || u.hash || u.username || u.password) {
        throw new ConfigError(`${name} must list http(s) origins such as https://app.example.com, got "${raw}"`);
      }
      return u.origin;
    });
}

const GEOCODER_TYPE_IDS = ['geocoder_type_1', 'geocoder_type_2', 'geocoder_type_3', 'geocoder_type_4', 'geocoder_type_5'] as const;

function geocoderConfig(env: Env): GeocoderConfig {
  const nominatimUrl = url(env, 'FSM_GEOCODER_NOMINATIM_URL');
  const photonUrl = url(env, 'FSM_GEOCODER_PHOTON_URL');
  const types = Object.fromEntries(GEOCODER_TYPE_IDS.map((t) => [t, 'offline'])) as GeocoderConfig['types'];
  // FSM_GEOCODER_TYPES=geocoder_type_2:nominatim,geocoder_type_3:photon (unlisted types stay offline).
  for (const item of (env.FSM_GEOCODER_TYPES ?? '').split(',').map((x) => x.trim()).filter(Boolean)) {
    const [type, provider] = item.split(':').map((x) => x.trim());
    if (!(GEOCODER_TYPE_IDS as readonly string[]).includes(type)) throw new ConfigError(`FSM_GEOCODER_TYPES: unknown geocoder type "${type}" (one of ${GEOCODER_TYPE_IDS.join(', ')})`);
    if (provider !== 'offline' && provider !== 'nominatim' && provider !== 'photon') throw new ConfigError(`FSM_GEOCODER_TYPES: unknown provider "${provider}" for ${type} (offline, nominatim or photon)`);
    if (provider === 'nominatim' && !nominatimUrl) throw new ConfigError(`FSM_GEOCODER_TYPES maps ${type} to nominatim but FSM_GEOCODER_NOMINATIM_URL is not set`);
    if (provider === 'photon' && !photonUrl) throw new ConfigError(`FSM_GEOCODER_TYPES maps ${type} to photon but FSM_GEOCODER_PHOTON_URL is not set`);
    types[type as keyof GeocoderConfig['types']] = provider;
  }
  return {
    nominatimUrl,
    photonUrl,
    types,
    timeoutMs: int(env, 'FSM_GEOCODER_TIMEOUT_MS', 5000, 100, 60_000),
    cacheSize: int(env, 'FSM_GEOCODER_CACHE_SIZE', 10_000, 0, 1_000_000),
    cacheDays: int(env, 'FSM_GEOCODER_CACHE_DAYS', 30, 0, 3650),
  };
}

function deepFreeze<T>(o: T): T {
  for (const v of Object.values(o as object)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(o);
}
