/**
 * flespi protocol (HTTP stream of a flespi channel): a POST whose body is a JSON array of messages,
 * each a flat object of flespi parameter names (`ident`, `timestamp`, `position.latitude`, ...;
 * indexed parameters as `ain#1`). A request is stored under the ident of its first message.
 * Answer: HTTP 200 with an empty body once the batch is stored (400 for a body that is not such an array).
 */
import { Attr, indexed } from './attributes.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DeviceRecord, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const MAX_BODY = 1024 * 1024;
const MAX_MESSAGES = 1000;

type Json = Record<string, unknown>;
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Scalar parameters with a name in the shared vocabulary: flespi name -> (attribute, conversion). */
const ATTRIBUTES: Record<string, [string, (v: number) => AttrValue]> = {
  din: [Attr.input, (v) => v],
  dout: [Attr.output, (v) => v],
  'engine.ignition.status': [Attr.ignition, (v) => v !== 0],
  'movement.status': [Attr.motion, (v) => v !== 0],
  'external.powersource.voltage': [Attr.power, (v) => v],
  'battery.voltage': [Attr.battery, (v) => v],
  'battery.level': [Attr.batteryLevel, (v) => v],
  'gsm.signal.level': [Attr.rssi, (v) => v],
  'vehicle.mileage': [Attr.odometer, (v) => v * 1000],
  'engine.rpm': [Attr.rpm, (v) => v],
  'fuel.level': [Attr.fuelLevel, (v) => v],
};
/** Indexed parameters (`ain#1`): flespi name -> attribute family. */
const INDEXED: Record<string, (n: number) => string> = { ain: indexed.adc, 'temperature': indexed.temp, 'refrigerator.sensor.temperature': indexed.temp };

function toRecord(m: Json): DeviceRecord | undefined {
  if (typeof m.ident !== 'string' && typeof m.ident !== 'number') return undefined;
  const rec: DeviceRecord = { deviceId: String(m.ident).slice(0, 64), valid: true, attributes: {} };
  const a = rec.attributes;
  const ts = num(m.timestamp);
  if (ts !== undefined) rec.time = Math.round(ts * 1000);
  const lat = num(m['position.latitude']);
  const lng = num(m['position.longitude']);
  if (lat !== undefined && lng !== undefined && Math.abs(lat) <= 90 && Math.abs(lng) <= 180 && (lat !== 0 || lng !== 0)) Object.assign(rec, { lat, lng });
  const speed = num(m['position.speed']);
  if (speed !== undefined && speed >= 0) rec.speed = speed;
  const course = num(m['position.direction']);
  if (course !== undefined && course >= 0 && course <= 360) rec.course = course;
  const altitude = num(m['position.altitude']);
  if (altitude !== undefined) rec.altitude = altitude;
  const sats = num(m['position.satellites']);
  if (sats !== undefined) rec.satellites = sats;
  const hdop = num(m['position.hdop']);
  if (hdop !== undefined) rec.hdop = hdop;
  if (typeof m['position.valid'] === 'boolean') rec.valid = m['position.valid'];
  if (m['alarm.event.trigger'] === true) a[Attr.alarm] = 'general';
  for (const [key, value] of Object.entries(m)) {
    const v = typeof value === 'boolean' ? Number(value) : num(value);
    if (v === undefined) continue;
    const known = ATTRIBUTES[key];
    if (known) a[known[0]] = known[1](v);
    const hash = key.indexOf('#');
    if (hash > 0 && INDEXED[key.slice(0, hash)]) {
      const n = Number(key.slice(hash + 1));
      if (Number.isInteger(n) && n >= 0 && n < 64) a[INDEXED[key.slice(0, hash)](n)] = v;
    }
  }
  return rec;
}

function decodeHttp(req: HttpRequest, _ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) throw new DecodeError('flespi: body too large');
  let root: unknown;
  try {
    root = JSON.parse(req.body.toString('utf8'));
  } catch {
    return { status: 400 };
  }
  if (!Array.isArray(root)) return { status: 400 };
  const records: DeviceRecord[] = [];
  for (const m of root.slice(0, MAX_MESSAGES)) {
    if (!m || typeof m !== 'object' || Array.isArray(m)) continue;
    const rec = toRecord(m as Json);
    if (rec) records.push(rec);
  }
  // A stream may carry many devices: each record names its ident and the gateway stores it under
  // that device; the first ident identifies the request (an unknown one answers 404).
  return { deviceId: records[0]?.deviceId, records, status: 200, body: '' };
}

export const protocol: Protocol = {
  name: 'flespi',
  defaultPort: 5149,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
