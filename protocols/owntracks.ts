/**
 * OwnTracks (phone app and OwnTracks-format trackers) over HTTP: a POST of one JSON message.
 * `_type: "location"` carries `lat`, `lon`, `tst` (s), optional `alt` (m), `vel` (km/h), `cog`, `acc` (m),
 * `batt` (%), `t` (trigger), and from vehicle trackers `uext`/`ubatt` (V), `vin`/`name`, `rpm`, `ign`,
 * `motion`, `odometer` (km), `hmc` (engine seconds), `anum` + `adda-NN`/`temp_c-NN`, `mcc`/`mnc`/`lac`/`cid`.
 * The device is its `topic`, else its `tid`. Other message types are answered and kept out.
 * Answer: HTTP 200 with `[]` (the app reads a JSON array of messages for it); 400 without identity.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DeviceRecord, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const MAX_BODY = 64 * 1024;
type Json = Record<string, unknown>;
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Trigger letters that mean an alarm or a state (`h` by its `rty` report type). */
const TRIGGERS: Record<string, (rec: DeviceRecord, rty: number | undefined) => void> = {
  '9': (r) => (r.attributes[Attr.alarm] = Alarm.lowBattery),
  '1': (r) => (r.attributes[Attr.alarm] = Alarm.powerOn),
  i: (r) => (r.attributes[Attr.ignition] = true),
  I: (r) => (r.attributes[Attr.ignition] = false),
  E: (r) => (r.attributes[Attr.alarm] = Alarm.powerRestored),
  e: (r) => (r.attributes[Attr.alarm] = Alarm.powerCut),
  '!': (r) => (r.attributes[Attr.alarm] = Alarm.tow),
  s: (r) => (r.attributes[Attr.alarm] = Alarm.overspeed),
  h: (r, rty) => {
    const alarm = [Alarm.hardBraking, Alarm.hardAcceleration, Alarm.hardCornering][rty === undefined ? -1 : rty % 3];
    if (alarm && rty! <= 5) r.attributes[Attr.alarm] = alarm;
  },
};

/** Plain fields: JSON key -> attribute and conversion. */
const FIELDS: Record<string, [string, (v: unknown) => AttrValue | undefined]> = {
  batt: [Attr.batteryLevel, num],
  uext: [Attr.power, num],
  ubatt: [Attr.battery, num],
  vin: [Attr.vin, (v) => (typeof v === 'string' ? v : undefined)],
  name: [Attr.vin, (v) => (typeof v === 'string' ? v : undefined)],
  rpm: [Attr.rpm, num],
  ign: [Attr.ignition, (v) => (typeof v === 'boolean' ? v : undefined)],
  motion: [Attr.motion, (v) => (typeof v === 'boolean' ? v : undefined)],
  odometer: [Attr.odometer, (v) => (num(v) !== undefined ? num(v)! * 1000 : undefined)],
  hmc: [Attr.hours, (v) => (num(v) !== undefined ? num(v)! * 1000 : undefined)],
};

function toRecord(m: Json): DeviceRecord {
  const lat = num(m.lat);
  const lng = num(m.lon);
  const tst = num(m.tst);
  if (lat === undefined || lng === undefined || tst === undefined || Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('owntracks: bad location');
  const rec: DeviceRecord = { time: tst * 1000, valid: true, lat, lng, attributes: {} };
  if (num(m.vel) !== undefined) rec.speed = num(m.vel);
  if (num(m.alt) !== undefined) rec.altitude = num(m.alt);
  if (num(m.cog) !== undefined) rec.course = num(m.cog)! % 360;
  if (num(m.acc) !== undefined) rec.precision = num(m.acc);
  if (typeof m.t === 'string') {
    rec.attributes[Attr.event] = m.t;
    TRIGGERS[m.t]?.(rec, num(m.rty));
  }
  for (const [key, [attr, convert]] of Object.entries(FIELDS)) {
    const v = m[key] !== undefined ? convert(m[key]) : undefined;
    if (v !== undefined) rec.attributes[attr] = v;
  }
  const inputs = Math.min(num(m.anum) ?? 0, 16);
  for (let i = 0; i < inputs; i++) {
    const n = String(i).padStart(2, '0');
    if (typeof m[`adda-${n}`] === 'string' || num(m[`adda-${n}`]) !== undefined) rec.attributes[indexed.adc(i + 1)] = Number(m[`adda-${n}`]);
    if (num(m[`temp_c-${n}`]) !== undefined) rec.attributes[indexed.temp(i + 1)] = num(m[`temp_c-${n}`])!;
  }
  const [mcc, mnc] = [num(m.mcc), num(m.mnc)];
  const hex = (v: unknown) => (typeof v === 'string' && /^[0-9A-Fa-f]{1,8}$/.test(v) ? parseInt(v, 16) : num(v));
  const [lac, cid] = [hex(m.lac), hex(m.cid)];
  if (mcc !== undefined && mnc !== undefined && lac !== undefined && cid !== undefined) rec.cells = [{ mcc, mnc, lac, cid }];
  return rec;
}

function decodeHttp(req: HttpRequest, _ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) throw new DecodeError('owntracks: body too large');
  let m: unknown;
  try {
    m = JSON.parse(req.body.toString('utf8'));
  } catch {
    return { status: 400 };
  }
  if (!m || typeof m !== 'object' || Array.isArray(m)) return { status: 400 };
  const j = m as Json;
  if (j._type !== 'location') return { status: 200, body: '[]' };
  const id = typeof j.topic === 'string' ? j.topic : typeof j.tid === 'string' ? j.tid : undefined;
  if (!id || id.length > 128) return { status: 400 };
  return { deviceId: id, records: [toRecord(j)], status: 200, body: '[]' };
}

export const protocol: Protocol = {
  name: 'owntracks',
  defaultPort: 5144,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
