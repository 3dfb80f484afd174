/**
 * JSON over HTTP (a webhook): each batch is one POST of `{"fixes": [...]}` (the shape below and in
 * docs/retranslators.md); any 2xx answer acknowledges the whole batch, anything else (or no answer
 * in time) acknowledges nothing. Login and password: HTTP basic auth; a password without a login is
 * sent as the `X-Retranslator-Secret` header instead (a shared secret the receiver checks).
 */
import type { ForwardFix, ForwardProtocol, OpenOptions, Session, Target } from '../types.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/** One fix as the JSON shape carries it: times ISO 8601 UTC, units in the names' docs. */
export function fixJson(f: ForwardFix) {
  return {
    seq: f.seq,
    tracker_id: f.trackerId,
    device_id: f.deviceId,
    time: iso(f.time),
    received: iso(f.received),
    lat: f.lat,
    lng: f.lng,
    altitude: f.alt,
    speed: f.speed,
    course: f.course,
    satellites: f.satellites,
    hdop: f.hdop,
    precision: f.precision,
    valid: f.valid,
    lbs: f.lbs,
    archive: f.archive,
    ignition: f.ignition,
    alarm: f.alarm,
    odometer: f.odometer,
    engine_hours: f.hours,
    fuel_used: f.fuelUsed,
    attributes: f.attrs,
  };
}

export function authHeaders(target: Target): Record<string, string> {
  if (target.login) return { authorization: `Basic ${Buffer.from(`${target.login}:${target.password}`).toString('base64')}` };
  if (target.password) return { 'x-retranslator-secret': target.password };
  return {};
}

/** POST and require a 2xx; the body is read (and dropped) so the connection is reused. */
export async function post(url: URL, body: string, contentType: string, headers: Record<string, string>, timeoutMs: number): Promise<void> {
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': contentType, ...headers }, signal: AbortSignal.timeout(timeoutMs) });
  await res.arrayBuffer().catch(() => undefined);
  if (res.status < 200 || res.status > 299) throw new Error(`receiver answered HTTP ${res.status}`);
}

export const jsonWebhook: ForwardProtocol = {
  id: 3,
  name: 'JSON over HTTP',
  hasLogin: true,
  hasPassword: true,
  requiredLogin: false,
  requiredPassword: false,
  url: true,
  defaultPort: 443,
  sessions: 'shared',
  batch: 2000,
  async open(target: Target, _deviceId: string | undefined, opts: OpenOptions): Promise<Session> {
    const headers = authHeaders(target);
    return {
      send: (fixes: ForwardFix[]) => post(target.url!, JSON.stringify({ fixes: fixes.map(fixJson) }), 'application/json', headers, opts.timeoutMs),
      close() {},
    };
  },
};
