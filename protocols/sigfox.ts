/**
 * Sigfox backend callbacks (HTTP): the Sigfox cloud, or a platform behind it, POSTs one JSON object
 * per uplink, either as the body or URL-encoded as the name of a form field (`%7B...%7D=`).
 *
 *   identity   `device` or `deviceId`
 *   time       `time` (s), else `positionTime` (s), else the time of arrival
 *   location   `location: {lat, lng}`, or `lat`/`lng` or `latitude`/`longitude` next to no `data`
 *              (a backend's own estimate: only used when the device sent no payload)
 *   `data`     the device's 12-byte payload, by device family (see DATA_FORMATS)
 *   `payload`  an event byte then typed items (see ITEMS)
 *   extras     `moving`, `magStatus`, `temperature`, `rssi`, `seqNumber`, `lastSeen`
 * Values may be JSON numbers, booleans or strings of them; the string "null" means absent.
 * Answer: HTTP 200 with an empty body; 400 for a body that is not such an object.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { macColons, wifiAttribute } from './text.ts';
import { DecodeError, type DecodeContext, type DeviceRecord, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const MAX_BODY = 64 * 1024;
type Json = Record<string, unknown>;

/** A present value: absent keys, JSON null and the string "null" are not. */
const present = (j: Json, key: string): boolean => j[key] !== undefined && j[key] !== null && j[key] !== 'null';
function number(j: Json, key: string): number | undefined {
  if (!present(j, key)) return undefined;
  const v = j[key];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}
const bool = (j: Json, key: string): boolean | undefined => (present(j, key) ? j[key] === true || j[key] === 'true' : undefined);

function setPosition(rec: DeviceRecord, lat: number, lng: number): void {
  if (!(Math.abs(lat) <= 90 && Math.abs(lng) <= 180)) throw new DecodeError('sigfox: coordinates out of range');
  Object.assign(rec, { valid: true, lat, lng });
}

/** Sign-and-magnitude 32-bit integer (top bit is the sign). */
const signMagnitude = (v: number): number => (v >= 0x80000000 ? -(v - 0x80000000) : v);

/**
 * 12-byte `data` payloads: the Amber model (by device setting), header 0x0f/0x1f (sign-magnitude
 * micro-degrees, battery %), and header 0x00..0x3f of length 12 (little-endian 1e-7 degrees, course / 2,
 * km/h, battery / 40 V) whose low nibble 0 is a fix (other kinds carry nothing kept).
 */
function decodeData(data: Buffer, rec: DeviceRecord, model: unknown): void {
  const r = new Reader(data);
  const header = r.u8();
  const a = rec.attributes;
  if (model === 'Amber') {
    a[Attr.motion] = (r.u8() & 0x02) !== 0;
    a[Attr.battery] = r.u8() / 50;
    a[indexed.temp(1)] = r.i8();
    setPosition(rec, r.i32() / 60000, r.i32() / 60000);
  } else if (header === 0x0f || header === 0x1f) {
    const lat = signMagnitude(r.u32()) / 1e6;
    const lng = signMagnitude(r.u32()) / 1e6;
    setPosition(rec, lat, lng);
    rec.valid = header >> 4 > 0;
    a[Attr.batteryLevel] = r.u8();
  } else if (header >> 4 <= 3 && data.length === 12 && (header & 0x0f) === 0) {
    setPosition(rec, r.i32le() / 1e7, r.i32le() / 1e7);
    rec.course = r.u8() * 2;
    rec.speed = r.u8();
    a[Attr.battery] = r.u8() / 40;
  }
}

/** `payload` items: type byte -> reader. Type 0x01 (24-bit coordinates of unknown scale) is skipped. */
const ITEMS: Record<number, (r: Reader, rec: DeviceRecord, wifi: Array<{ mac: string; rssi: number }>) => void> = {
  0x01: (r) => r.skip(6),
  0x02: (r, rec) => {
    const b = r.bytes(8);
    setPosition(rec, b.readFloatBE(0), b.readFloatBE(4));
  },
  0x03: (r, rec) => (rec.attributes[indexed.temp(1)] = r.i8() * 0.5),
  0x04: (r, rec) => (rec.attributes[Attr.battery] = r.u8() / 10),
  0x05: (r, rec) => (rec.attributes[Attr.batteryLevel] = r.u8()),
  0x06: (r, _rec, wifi) => wifi.push({ mac: macColons(r.hex(6)), rssi: r.u8() }),
  0x07: (r) => r.skip(10), // extended Wi-Fi record
  0x08: (r) => r.skip(6), // accelerometer
  0x09: (r, rec) => (rec.speed = r.u8()),
};
const SOS_EVENTS = new Set([0x22, 0x62]);

function decodePayload(payload: Buffer, rec: DeviceRecord): void {
  const r = new Reader(payload);
  const event = r.u8();
  rec.attributes[Attr.event] = event;
  if (SOS_EVENTS.has(event)) rec.attributes[Attr.alarm] = Alarm.sos;
  const wifi: Array<{ mac: string; rssi: number }> = [];
  while (r.remaining) {
    const item = ITEMS[r.u8()];
    if (item) item(r, rec, wifi);
    else r.skip(1); // geofence number
  }
  if (wifi.length) rec.attributes.wifi = wifiAttribute(wifi);
}

const hexBytes = (v: unknown): Buffer => {
  if (typeof v !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(v)) throw new DecodeError('sigfox: bad hex');
  return Buffer.from(v, 'hex');
};

function parseBody(body: Buffer): Json | undefined {
  let text = body.toString('utf8').trim();
  if (!text.startsWith('{')) {
    try {
      text = decodeURIComponent(text.split('=')[0].replace(/\+/g, ' '));
    } catch {
      return undefined;
    }
  }
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

function decodeHttp(req: HttpRequest, ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) throw new DecodeError('sigfox: body too large');
  const j = parseBody(req.body);
  const id = j && (typeof j.device === 'string' ? j.device : typeof j.deviceId === 'string' ? j.deviceId : undefined);
  if (!j || !id || id.length > 64) return { status: 400 };
  const rec: DeviceRecord = { attributes: {} };
  const seconds = number(j, 'time') ?? number(j, 'positionTime');
  rec.time = seconds !== undefined ? seconds * 1000 : ctx.now;
  const location = present(j, 'location') && typeof j.location === 'object' ? (j.location as Json) : undefined;
  if (location || (!present(j, 'data') && ((present(j, 'lat') && present(j, 'lng')) || (present(j, 'latitude') && present(j, 'longitude'))))) {
    const l = location ?? j;
    const lat = number(l, 'lat') ?? number(l, 'latitude');
    const lng = number(l, 'lng') ?? number(l, 'longitude');
    if (lat !== undefined && lng !== undefined) setPosition(rec, lat, lng);
    const radius = number(l, 'radius');
    if (radius !== undefined) rec.precision = radius;
  } else if (present(j, 'data')) {
    decodeData(hexBytes(j.data), rec, ctx.config.modelOverride);
  } else if (present(j, 'payload')) {
    decodePayload(hexBytes(j.payload), rec);
  }
  const a = rec.attributes;
  const moving = bool(j, 'moving');
  if (moving !== undefined) a[Attr.motion] = moving;
  const mag = bool(j, 'magStatus');
  if (mag !== undefined) a[Attr.blocked] = mag;
  const temperature = number(j, 'temperature');
  if (temperature !== undefined) a[Attr.deviceTemp] = temperature;
  const rssi = number(j, 'rssi');
  if (rssi !== undefined) a[Attr.rssi] = rssi;
  const seq = number(j, 'seqNumber');
  if (seq !== undefined) a[Attr.index] = seq;
  return { deviceId: id, records: [rec], status: 200, body: '' };
}

export const protocol: Protocol = {
  name: 'sigfox',
  defaultPort: 5154,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
