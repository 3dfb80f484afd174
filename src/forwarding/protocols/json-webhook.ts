/**
 * JSON over HTTP (a webhook): each batch is one POST of `{"fixes": [...]}` (the shape below and in
 * docs/retranslators.md); any 2xx answer acknowledges the whole batch, anything else (or no answer
 * in time) acknowledges nothing. Login and password: HTTP basic auth; a password without a login is
 * sent as the `X-Retranslator-Secret` header instead (a shared secret the receiver checks).
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { SecondText } from '../../core/time.ts';
import { BatchTooLarge, type ForwardFix, type ForwardProtocol, type OpenOptions, type Session, type Target } from '../types.ts';
import { TextBytes } from './text-bytes.ts';

const iso = (ms: number) => new Date(ms).toISOString();
/** `yyyy-MM-ddTHH:mm:ss` of the seconds met (fixes share seconds), then the milliseconds. */
const isoSeconds = new SecondText((ms) => iso(ms).slice(0, -5));
const ms3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);
const isoFast = (ms: number) => (Number.isInteger(ms) && Math.abs(ms) < 8.64e15 ? `${isoSeconds.of(ms)}.${ms3(ms - Math.floor(ms / 1000) * 1000)}Z` : iso(ms));
/** Device ids as JSON strings (a batch repeats each tracker's). */
const idText = new Map<string, string>();
function jsonId(id: string): string {
  let t = idText.get(id);
  if (t === undefined) {
    if (idText.size >= 65_536) idText.clear();
    idText.set(id, (t = JSON.stringify(id)));
  }
  return t;
}
const num = (v: number | null) => (v === null || !Number.isFinite(v) ? 'null' : String(v));

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

/**
 * The same object as `fixJson` as JSON text, written directly (one string per fix, no intermediate
 * object); the attributes are the stored JSON text when the fix has it (the same members and values).
 */
export function fixJsonText(f: ForwardFix): string {
  const ign = f.ignition;
  return (
    `{"seq":${f.seq},"tracker_id":${f.trackerId},"device_id":${jsonId(f.deviceId)},"time":"${isoFast(f.time)}","received":"${isoFast(f.received)}",` +
    `"lat":${num(f.lat)},"lng":${num(f.lng)},"altitude":${num(f.alt)},"speed":${num(f.speed)},"course":${num(f.course)},"satellites":${num(f.satellites)},` +
    `"hdop":${num(f.hdop)},"precision":${num(f.precision)},"valid":${f.valid},"lbs":${f.lbs},"archive":${f.archive},"ignition":${ign === null ? 'null' : ign},` +
    `"alarm":${f.alarm},"odometer":${num(f.odometer)},"engine_hours":${num(f.hours)},"fuel_used":${num(f.fuelUsed)},"attributes":${f.attrsJson || JSON.stringify(f.attrs)}}`
  );
}

/**
 * The batch body `{"fixes":[...]}` as bytes, written into one piece (`TextBytes`) a fix's text at a
 * time, without the joined text (converting it whole cost more than writing the
 * text). Writing the members byte by byte was slower still: copying the constant member names from
 * script costs more than V8's string building does.
 */
export class BatchEncoder {
  private out = new TextBytes();

  batch(fixes: ForwardFix[]): Buffer {
    const o = this.out;
    o.begin();
    o.ascii('{"fixes":[');
    for (let i = 0; i < fixes.length; i++) {
      if (i) o.byte(0x2c);
      o.utf8(fixJsonText(fixes[i]));
    }
    o.ascii(']}');
    return o.take();
  }
}

export function authHeaders(target: Target): Record<string, string> {
  if (target.login) return { authorization: `Basic ${Buffer.from(`${target.login}:${target.password}`).toString('base64')}` };
  if (target.password) return { 'x-retranslator-secret': target.password };
  return {};
}

// Connections are kept open between batches (node:http rather than fetch: far less work per request).
const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 64 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 64 }) };

/** POST and require a 2xx; the body is read (and dropped) so the connection is reused. */
export function post(url: URL, body: string | Buffer, contentType: string, headers: Record<string, string>, timeoutMs: number): Promise<void> {
  const tls = url.protocol === 'https:';
  const payload = typeof body === 'string' ? Buffer.from(body) : body;
  return new Promise<void>((resolve, reject) => {
    const req = (tls ? httpsRequest : httpRequest)(
      url,
      { method: 'POST', agent: tls ? agents.https : agents.http, headers: { 'content-type': contentType, 'content-length': payload.length, ...headers } },
      (res) => {
        res.on('data', () => undefined);
        res.on('error', reject);
        res.on('end', () => {
          clearTimeout(timer);
          const status = res.statusCode ?? 0;
          if (status === 413) reject(new BatchTooLarge(`receiver answered HTTP 413 to a body of ${payload.length} bytes`));
          else if (status < 200 || status > 299) reject(new Error(`receiver answered HTTP ${status}`));
          else resolve();
        });
      },
    );
    // one deadline for the whole exchange (connect, send, answer)
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(payload);
  });
}

// one encoder for every session (the forwarding thread encodes one batch at a time)
const encoder = new BatchEncoder();

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
  // one 2,000-fix POST at a time forwarded ~15,000 fixes/s to a local receiver (a round trip per
  // batch); bodies stay under the common 1 MiB limits, so more go at once instead of larger ones
  lanes: 4,
  async open(target: Target, _deviceId: string | undefined, opts: OpenOptions): Promise<Session> {
    const headers = authHeaders(target);
    return {
      send: (fixes: ForwardFix[]) => post(target.url!, encoder.batch(fixes), 'application/json', headers, opts.timeoutMs),
      close() {},
    };
  },
};
