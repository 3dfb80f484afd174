/**
 * OsmAnd / Traccar Client: phone apps reporting over HTTP. Either query parameters (GET, or a
 * form-encoded POST body) such as `?id=..&lat=..&lon=..&timestamp=..&speed=<knots>`, or a JSON
 * body as background-geolocation libraries post it (`{location:{coords:{..}}, device_id}`).
 * The app only needs a 200; a request without identity gets a 400.
 */
import { knotsToKmh } from './binary.ts';
import { Attr } from './attributes.ts';
import { DecodeError } from './types.ts';
import type { AttrValue, Cell, DecodeContext, DeviceRecord, HttpDecodeResult, HttpRequest, Protocol } from './types.ts';

const MAX_BODY = 256 * 1024;
const MPS_TO_KMH = 3.6;

// ---------------------------------------------------------------- shared helpers

function finite(value: unknown, what: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n)) throw new DecodeError(`osmand: bad ${what}`);
  return n;
}

/** Seconds, milliseconds, ISO-8601 or `yyyy-MM-dd HH:mm:ss` (taken as UTC). */
function parseTime(value: string): number {
  if (/^\d+(\.\d+)?$/.test(value)) {
    const n = Number(value);
    return n < 2 ** 31 ? Math.round(n * 1000) : Math.round(n);
  }
  const plain = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?$/.test(value);
  const t = Date.parse(plain ? `${value.replace(' ', 'T')}Z` : value);
  if (!Number.isFinite(t)) throw new DecodeError('osmand: bad timestamp');
  return t;
}

/** Free-form values: numbers and booleans typed, the rest kept as text. */
function typed(value: string): AttrValue {
  if (value === 'true') return true;
  if (value === 'false') return false;
  const n = Number(value);
  return value.trim() !== '' && Number.isFinite(n) ? n : value;
}

function setPosition(r: DeviceRecord, lat: number, lng: number): void {
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('osmand: coordinates out of range');
  // 0,0 is what apps send without a fix: keep the record as a status record.
  if (lat !== 0 || lng !== 0) Object.assign(r, { lat, lng });
}

// ---------------------------------------------------------------- query parameters

interface QueryState {
  record: DeviceRecord;
  deviceId?: string;
  wifi: string[];
}

type ParamHandler = (s: QueryState, value: string) => void;

/** Labelled parameters; anything else becomes a typed attribute under its own name. */
const PARAMS: Record<string, ParamHandler> = {
  id: (s, v) => (s.deviceId = v),
  deviceid: (s, v) => (s.deviceId = v),
  valid: (s, v) => (s.record.valid = v === 'true' || v === '1'),
  timestamp: (s, v) => (s.record.time = parseTime(v)),
  lat: (s, v) => (s.record.lat = finite(v, 'lat')),
  lon: (s, v) => (s.record.lng = finite(v, 'lon')),
  location: (s, v) => {
    const [lat, lon] = v.split(',');
    s.record.lat = finite(lat, 'location');
    s.record.lng = finite(lon, 'location');
  },
  cell: (s, v) => (s.record.cells ??= []).push(parseCell(v)),
  wifi: (s, v) => s.wifi.push(v),
  speed: (s, v) => (s.record.speed = knotsToKmh(finite(v, 'speed'))),
  bearing: (s, v) => (s.record.course = finite(v, 'bearing')),
  heading: (s, v) => (s.record.course = finite(v, 'heading')),
  altitude: (s, v) => (s.record.altitude = finite(v, 'altitude')),
  accuracy: (s, v) => (s.record.precision = finite(v, 'accuracy')),
  hacc: (s, v) => (s.record.precision ??= finite(v, 'hacc')),
  hdop: (s, v) => (s.record.hdop = finite(v, 'hdop')),
  batt: (s, v) => (s.record.attributes[Attr.batteryLevel] = finite(v, 'batt')),
  driverUniqueId: (s, v) => (s.record.attributes[Attr.driverUniqueId] = v),
};

/** `mcc,mnc,lac,cid[,rssi]` */
function parseCell(value: string): Cell {
  const [mcc, mnc, lac, cid, rssi] = value.split(',').map((p) => finite(p, 'cell'));
  if (cid === undefined) throw new DecodeError('osmand: bad cell');
  return rssi === undefined ? { mcc, mnc, lac, cid } : { mcc, mnc, lac, cid, rssi };
}

function decodeQuery(params: URLSearchParams, ctx: DecodeContext): { deviceId?: string; records: DeviceRecord[] } {
  const s: QueryState = { record: { valid: true, attributes: {} }, wifi: [] };
  for (const [key, value] of params) {
    const handler = PARAMS[key];
    if (handler) handler(s, value);
    else if (key) s.record.attributes[key] = typed(value);
  }
  const r = s.record;
  if (s.wifi.length) r.attributes.wifi = s.wifi.join(';');
  r.time ??= ctx.now;
  const { lat, lng } = r;
  delete r.lat;
  delete r.lng;
  if (lat !== undefined && lng !== undefined) setPosition(r, lat, lng);
  if (r.lat === undefined) delete r.valid; // validity only qualifies a fix
  return { deviceId: s.deviceId, records: [r] };
}

// ---------------------------------------------------------------- JSON body

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Negative speed/heading/level mean "unknown" in these apps. */
const known = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);

function jsonValue(v: unknown): AttrValue | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  return v === null || v === undefined ? undefined : JSON.stringify(v);
}

function decodeLocation(loc: Json, ctx: DecodeContext): DeviceRecord {
  const r: DeviceRecord = { valid: true, attributes: {} };
  r.time = typeof loc.timestamp === 'string' || typeof loc.timestamp === 'number' ? parseTime(String(loc.timestamp)) : ctx.now;
  const c = isObject(loc.coords) ? loc.coords : {};
  if (c.latitude !== undefined && c.longitude !== undefined) setPosition(r, finite(c.latitude, 'latitude'), finite(c.longitude, 'longitude'));
  if (r.lat === undefined) delete r.valid;
  const speed = known(c.speed);
  if (speed !== undefined) r.speed = speed * MPS_TO_KMH;
  const course = known(c.heading);
  if (course !== undefined) r.course = course;
  if (typeof c.altitude === 'number' && Number.isFinite(c.altitude)) r.altitude = c.altitude;
  const accuracy = known(c.accuracy);
  if (accuracy !== undefined) r.precision = accuracy;
  const a = r.attributes;
  if (typeof loc.is_moving === 'boolean') a[Attr.motion] = loc.is_moving;
  if (known(loc.odometer) !== undefined) a[Attr.odometer] = loc.odometer as number;
  // The current client's template sends "event":"" for ordinary locations: no event then.
  if (typeof loc.event === 'string' && loc.event !== '') a[Attr.event] = loc.event;
  if (isObject(loc.battery)) {
    const level = known(loc.battery.level);
    if (level !== undefined) a[Attr.batteryLevel] = Math.round(level * 100);
    if (typeof loc.battery.is_charging === 'boolean') a[Attr.charge] = loc.battery.is_charging;
  }
  if (isObject(loc.activity) && typeof loc.activity.type === 'string') a.activity = loc.activity.type;
  if (isObject(loc.extras)) {
    for (const [key, value] of Object.entries(loc.extras)) {
      const v = jsonValue(value);
      if (v !== undefined) a[key] = v;
    }
  }
  return r;
}

function decodeJson(body: Buffer, ctx: DecodeContext): { deviceId?: string; records: DeviceRecord[] } {
  let root: unknown;
  try {
    root = JSON.parse(body.toString('utf8'));
  } catch {
    throw new DecodeError('osmand: body is not JSON');
  }
  if (!isObject(root)) throw new DecodeError('osmand: JSON body is not an object');
  const id = root.device_id ?? root.deviceId ?? root.id;
  const deviceId = typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
  // Batched uploads carry an array of locations.
  const locations = Array.isArray(root.location) ? root.location : [root.location];
  return { deviceId, records: locations.filter(isObject).map((l) => decodeLocation(l, ctx)) };
}

// ---------------------------------------------------------------- request

function isJson(req: HttpRequest): boolean {
  const type = req.headers['content-type'] ?? '';
  return type.includes('json') || (!type.includes('form') && req.body.subarray(0, 16).toString('latin1').trimStart().startsWith('{'));
}

function decodeHttp(req: HttpRequest, ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) throw new DecodeError('osmand: body too large');
  const q = req.uri.indexOf('?');
  let params = new URLSearchParams(q >= 0 ? req.uri.slice(q + 1) : '');
  let decoded;
  if (params.size === 0 && req.body.length > 0 && isJson(req)) decoded = decodeJson(req.body, ctx);
  else {
    if (params.size === 0) params = new URLSearchParams(req.body.toString('utf8'));
    decoded = decodeQuery(params, ctx);
  }
  const deviceId = decoded.deviceId?.trim();
  if (!deviceId || deviceId.length > 64) return { status: 400 };
  return { deviceId, records: decoded.records, status: 200 };
}

export const protocol: Protocol = {
  name: 'osmand',
  defaultPort: 5055,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
