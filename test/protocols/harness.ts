/**
 * Replays `../shared/captures` against protocol modules: message lines through `decode` /
 * `decodeHttp` (groups in `seq` order, one session per group), `frames/` lines through the
 * framer, `commands/` lines through the encoder. One shared sanity checker runs on every fix.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DecodeContext, DecodeResult, DeviceRecord, Protocol } from '../../protocols/types.ts';

const here = dirname(fileURLToPath(import.meta.url));
export const capturesDir = process.env.FSM_CAPTURES_DIR ?? join(here, '../../../shared/captures');

export interface CaptureLine {
  protocol: string;
  transport?: 'tcp' | 'udp' | 'http' | 'mqtt';
  encoding: 'hex' | 'text';
  payload: string;
  expect: string;
  asserted?: Record<string, unknown>;
  location_checked?: boolean;
  http?: { method: string; uri: string; headers?: Record<string, string>; body?: string };
  /** MQTT lines: a CONNECT's client id, or a PUBLISH body (see the captures' README). */
  mqtt?: { type: 'connect'; clientId: string } | { type: 'publish'; qos: number; messageId: number; body: string };
  decoder_config?: Record<string, unknown>;
  encoder_config?: Record<string, unknown>;
  group: string;
  seq: number;
  frame?: string;
  command?: { type: string; attributes: Record<string, string | number | boolean> };
  device_unique_id?: string;
  variant?: string;
  note?: string;
  source?: string;
}

export function loadLines(file: string): CaptureLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as CaptureLine);
}

export const messageLines = (name: string) => loadLines(join(capturesDir, `${name}.jsonl`));
export const frameLines = (name: string) => loadLines(join(capturesDir, 'frames', `${name}.jsonl`));
export const commandLines = (name: string) => loadLines(join(capturesDir, 'commands', `${name}.jsonl`));

export const payloadBytes = (l: { encoding: string; payload: string }) =>
  l.encoding === 'hex' ? Buffer.from(l.payload, 'hex') : Buffer.from(l.payload, 'utf8');

/** Lines grouped as the source replayed them: one decoder instance per group, `seq` order. */
export function groups(lines: CaptureLine[]): CaptureLine[][] {
  const byGroup = new Map<string, CaptureLine[]>();
  for (const l of lines) {
    const g = byGroup.get(l.group) ?? [];
    g.push(l);
    byGroup.set(l.group, g);
  }
  return [...byGroup.values()].map((g) => g.sort((a, b) => a.seq - b.seq));
}

/** Fixed "now" for replays: after every capture's fix time, so time-of-day-only protocols resolve sensibly. */
export const REPLAY_NOW = Date.now();

export interface ReplayStep {
  line: CaptureLine;
  result?: DecodeResult;
  /** Records that count: those of a connection whose device is identified. */
  records: DeviceRecord[];
  error?: unknown;
}

/** Decode every line of one group in order, carrying the session and identity like a connection. */
export function replayGroup(protocol: Protocol, lines: CaptureLine[], now = REPLAY_NOW): ReplayStep[] {
  const ctx: DecodeContext = { now, transport: 'tcp', config: {}, session: {} };
  const steps: ReplayStep[] = [];
  for (const line of lines) {
    ctx.config = { ...ctx.config, ...(line.decoder_config ?? {}) };
    // A capture whose source stubbed the media store says what the stub answers: name the files so, as the gateway would.
    const stub = typeof ctx.config.mediaManager === 'string' ? /returns the name (\S+)/.exec(ctx.config.mediaManager) : null;
    ctx.transport = line.transport ?? 'tcp';
    try {
      let result: DecodeResult;
      if (line.transport === 'http') {
        const h = line.http!;
        const body = h.body === 'payload' ? payloadBytes(line) : Buffer.alloc(0);
        const uri = h.body === 'payload' ? h.uri : line.payload;
        if (!protocol.decodeHttp) throw new Error(`${protocol.name} has no decodeHttp`);
        result = protocol.decodeHttp({ method: h.method, uri, headers: lowerKeys(h.headers ?? {}), body }, ctx);
      } else if (line.mqtt?.type === 'connect') {
        if (!protocol.decodeMqttConnect) throw new Error(`${protocol.name} has no decodeMqttConnect`);
        result = protocol.decodeMqttConnect(payloadBytes(line).toString('utf8'), ctx);
      } else {
        if (!protocol.decode) throw new Error(`${protocol.name} has no decode`);
        result = protocol.decode(payloadBytes(line), ctx);
      }
      if (result.deviceId) ctx.deviceId = result.deviceId;
      if (stub) for (const m of result.media ?? []) result.records![m.record].attributes[m.attribute] = stub[1];
      const records = (result.records ?? []).filter((r) => r.deviceId ?? ctx.deviceId);
      steps.push({ line, result, records });
    } catch (error) {
      steps.push({ line, records: [], error });
    }
  }
  return steps;
}

const lowerKeys = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));

const isFix = (r: DeviceRecord) => typeof r.lat === 'number' && typeof r.lng === 'number';
const KNOTS = 1.852;

/** The shared sanity checker: returns a list of problems (empty when the fix is plausible). */
export function sanityProblems(r: DeviceRecord, asserted: Record<string, unknown>, now = REPLAY_NOW): string[] {
  const p: string[] = [];
  if (!isFix(r)) return ['not a fix (no lat/lng)'];
  if (!('time' in asserted)) {
    if (typeof r.time !== 'number' || !Number.isFinite(r.time)) p.push(`time missing`);
    else if (r.time < Date.UTC(2000, 0, 1) || r.time > now + 25 * 3600e3) p.push(`time out of range: ${new Date(r.time).toISOString()}`);
  }
  if (!('latitude' in asserted) && !(r.lat! >= -90 && r.lat! <= 90)) p.push(`lat out of range: ${r.lat}`);
  if (!('longitude' in asserted) && !(r.lng! >= -180 && r.lng! <= 180)) p.push(`lng out of range: ${r.lng}`);
  if (r.speed !== undefined && !(r.speed >= 0 && r.speed <= 869 * KNOTS + 1e-9)) p.push(`speed out of range: ${r.speed} km/h`);
  if (r.course !== undefined && !(r.course >= 0 && r.course <= 360)) p.push(`course out of range: ${r.course}`);
  if (r.altitude !== undefined && !(r.altitude >= -12262 && r.altitude <= 18000)) p.push(`altitude out of range: ${r.altitude}`);
  return p;
}

const close = (a: unknown, b: unknown, tol: number) => typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) <= tol;

/** Compare the `asserted` values of a line with the first record. Returns problems. */
export function assertedProblems(r: DeviceRecord | undefined, asserted: Record<string, unknown>): string[] {
  const p: string[] = [];
  for (const [key, want] of Object.entries(asserted)) {
    let got: unknown;
    let ok: boolean;
    switch (key) {
      case 'time':
        got = r?.time !== undefined ? new Date(r.time).toISOString() : undefined;
        ok = got === new Date(want as string).toISOString();
        break;
      case 'valid':
        got = r?.valid;
        ok = got === want;
        break;
      case 'latitude':
        got = r?.lat;
        ok = close(got, want, 1e-5);
        break;
      case 'longitude':
        got = r?.lng;
        ok = close(got, want, 1e-5);
        break;
      case 'speed': // asserted in knots, records carry km/h
        got = r?.speed !== undefined ? r.speed / KNOTS : undefined;
        ok = close(got, want, 1e-3 * Math.max(1, Math.abs(want as number)));
        break;
      case 'course':
        got = r?.course;
        ok = close(got, want, 1e-6);
        break;
      case 'altitude':
        got = r?.altitude;
        ok = close(got, want, 1e-6);
        break;
      case 'network': {
        const towers = (want as { cellTowers?: Array<Record<string, number>> }).cellTowers ?? [];
        got = r?.cells;
        ok =
          Array.isArray(r?.cells) &&
          r.cells.length === towers.length &&
          towers.every((t, i) => {
            const c = r.cells![i];
            return c.mcc === t.mobileCountryCode && c.mnc === t.mobileNetworkCode && c.lac === t.locationAreaCode && c.cid === t.cellId;
          });
        break;
      }
      default:
        got = r?.attributes[key];
        ok = want === null ? got === undefined : typeof want === 'number' ? close(got, want, 1e-9 * Math.max(1, Math.abs(want))) : got === want;
    }
    if (!ok) p.push(`${key}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  }
  return p;
}

/** Everything wrong with one replayed line, judged against its `expect`, `asserted` and `location_checked`. */
export function stepProblems(step: ReplayStep): string[] {
  const { line, records, error } = step;
  if (error) return [`threw ${(error as Error)?.stack ?? error}`];
  const asserted = line.asserted ?? {};
  const p: string[] = [];
  const fixes = records.filter(isFix);
  switch (line.expect) {
    case 'none':
      if (records.length) p.push(`expected nothing, got ${records.length} record(s)`);
      break;
    case 'notnull':
      if (!records.length) p.push('expected something, got nothing');
      break;
    case 'attributes':
      if (!records.some((r) => Object.keys(r.attributes).length > 0)) p.push('expected a record with attributes');
      break;
    case 'position':
      if (records.length !== 1 || fixes.length !== 1) p.push(`expected exactly one fix, got ${records.length} record(s), ${fixes.length} fix(es)`);
      break;
    case 'positions':
      if (!fixes.length) p.push('expected fixes, got none');
      break;
    default:
      p.push(`unknown expect ${line.expect}`);
  }
  if ((line.expect === 'position' || line.expect === 'positions') && line.location_checked) {
    for (const f of line.expect === 'position' ? fixes.slice(0, 1) : fixes) p.push(...sanityProblems(f, asserted));
  }
  // A line from a test disabled upstream ("decoder may not pass on this message") is held to its
  // `expect`; its asserted values may be placeholders (a Suntech crash line asserts gSensor "").
  const disabledUpstream = /@Disabled upstream/.test(line.note ?? '');
  if (Object.keys(asserted).length && !disabledUpstream) p.push(...assertedProblems(records[0], asserted));
  return p;
}

/** The fixed time command lines were encoded at (the H02 source test fixes 01:02:03). */
export const COMMAND_NOW = Date.UTC(2025, 1, 22, 1, 2, 3);
