/**
 * Piligrim trackers over HTTP. Every request is answered 200 with `<PATH>: OK`.
 *   POST /bingps?imei=<imei>&...   body: records `header u8 | type u8 | length u8 | ...`
 *        F1 GPS / F2 GPS + sensors: day, month (low nibble) + year-2010 (high nibble), h, m, s,
 *        lat and lon as degrees, minutes, 1/100 and 1/10000 minutes, flags (bit 0 south, bit 1 west,
 *        bit 2 course low bit), satellites, km/h, course/2, course 1/100; F2 adds power and battery
 *        (1/100 V, little-endian) and more bytes; F3 events (skipped). Each record's length byte counts
 *        the whole record and is followed to the next one
 *   POST /push.do  body: an SMS forwarded as `&phoneNumber=...&message=...$GPRMC,...`
 *   /config, /addlog, /inform: acknowledged only
 */
import { Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { nmeaCoordinate, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DeviceRecord, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const MSG_GPS = 0xf1;
const MSG_GPS_SENSORS = 0xf2;
const MSG_EVENTS = 0xf3;
const MAX_BODY = 64 * 1024;

function gpsRecord(r: Reader, type: number): DeviceRecord {
  const day = r.u8();
  const my = r.u8();
  const time = utc(2010 + (my >> 4), my & 0x0f, day, r.u8(), r.u8(), r.u8());
  const coordinate = () => r.u8() + r.u8() / 60 + r.u8() / 6000 + r.u8() / 600000;
  let lat = coordinate();
  let lng = coordinate();
  const flags = r.u8();
  if (flags & 1) lat = -lat;
  if (flags & 2) lng = -lng;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('piligrim: coordinates out of range');
  const satellites = r.u8();
  const speed = r.u8();
  const course = (r.u8() << 1) + ((flags >> 2) & 1) + r.u8() / 100;
  const rec: DeviceRecord = { time, lat, lng, satellites, valid: satellites >= 3, speed, course: course > 360 ? 0 : course, attributes: {} };
  if (type === MSG_GPS_SENSORS) {
    // 32-byte records carry one more byte before the voltages (then the battery reads 4.1x V, as a Li-ion cell should)
    if (r.remaining >= 11) r.u8();
    rec.attributes[Attr.power] = r.u16le() / 100;
    rec.attributes[Attr.battery] = r.u16le() / 100;
    r.skip(Math.min(6, r.remaining));
  }
  return rec;
}

function binGps(req: HttpRequest, query: URLSearchParams): HttpDecodeResult {
  const imei = query.get('imei') ?? undefined;
  const body = 'BINGPS: OK';
  if (!imei) return { status: 200, body };
  const r = new Reader(req.body);
  const records: DeviceRecord[] = [];
  while (r.remaining > 2) {
    const start = r.pos;
    r.u8(); // header
    const type = r.u8();
    const length = r.u8(); // of the whole record, header included
    if (type === MSG_GPS || type === MSG_GPS_SENSORS) records.push(gpsRecord(new Reader(req.body, r.pos, start + length), type));
    // the length keeps the records aligned where a firmware adds bytes to a record
    if (length >= 3) r.pos = Math.min(start + length, r.end);
    else if (type === MSG_EVENTS) r.skip(13);
    if (records.length > 1024) throw new DecodeError('piligrim: too many records');
  }
  return { deviceId: imei, records, status: 200, body };
}

const RMC = /\$GPRMC,(\d\d)(\d\d)(\d\d)\.\d+,([AV]),(\d{4}\.\d+),([NS]),(\d{4,5}\.\d+),([EW]),(\d+\.\d+),(\d+\.\d+),(\d\d)(\d\d)(\d\d),/;

function push(req: HttpRequest): HttpDecodeResult {
  const body = 'PUSH.DO: OK';
  const parts = req.body.toString('latin1').split('&');
  const phone = parts[1]?.startsWith('phoneNumber=') ? decodeURIComponent(parts[1].slice(12).replace(/\+/g, ' ')).replace(/^\+\s*/, '').trim() : '';
  if (!phone) return { status: 200, body };
  const m = RMC.exec(parts[2] ?? '');
  if (!m) return { deviceId: phone, status: 200, body };
  const [, hh, mi, ss, valid, lat, ns, lng, ew, speed, course, dd, mo, yy] = m;
  const rec: DeviceRecord = {
    time: utc(Number(yy), Number(mo), Number(dd), Number(hh), Number(mi), Number(ss)),
    valid: valid === 'A',
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew),
    speed: Number(speed) * 1.852,
    course: Number(course),
    attributes: {},
  };
  return { deviceId: phone, records: [rec], status: 200, body };
}

function decodeHttp(req: HttpRequest, _ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) return { status: 413 };
  const q = req.uri.indexOf('?');
  const path = q < 0 ? req.uri : req.uri.slice(0, q);
  let query: URLSearchParams;
  try {
    query = new URLSearchParams(q < 0 ? '' : req.uri.slice(q + 1));
  } catch {
    throw new DecodeError('piligrim: bad query');
  }
  if (path.startsWith('/bingps')) return binGps(req, query);
  if (path.startsWith('/push.do')) {
    try {
      return push(req);
    } catch (e) {
      if (e instanceof URIError) throw new DecodeError('piligrim: bad phone number');
      throw e;
    }
  }
  for (const [prefix, answer] of [['/config', 'CONFIG: OK'], ['/addlog', 'ADDLOG: OK'], ['/inform', 'INFORM: OK']]) {
    if (path.startsWith(prefix)) return { status: 200, body: answer };
  }
  return { status: 404 };
}

export const protocol: Protocol = {
  name: 'piligrim',
  defaultPort: 5059,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
  commands: [],
};
