/**
 * Freematics ONE+ / Hub telemetry over UDP: `<id>#<payload>*<checksum>`.
 *   events   `EV=<n>,TS=<device ms>,ID=<id>[,SSI=..][,VIN=..]`   -> `1#EV=<n>,RX=1,TS=<ts>*<byte sum>`
 *   data     `<hex key>:<value>,...` (or `=`), a new record at every key 0 (device time):
 *            0x10 time `hhmmsscc`, 0x11 date `ddmmyy`, 0xA/0xB lat/lon, 0xC altitude, 0xD km/h, 0xE course,
 *            0xF satellites, 0x12 hdop, 0x20 accelerometer, 0x24 battery (V × 100), 0x81 rssi,
 *            0x82 device temperature (× 10), 0x1xx OBD-II PIDs (0x104 load, 0x105 coolant, 0x10C rpm,
 *            0x10D speed, 0x111 throttle); other keys are kept as `io<key>`.
 */
import { Attr, indexed } from './attributes.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { latin1, timeOfDay, utc } from './text.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_RECORDS = 64;

interface Session {
  last?: LastFix;
}

const sum = (s: string) => {
  let x = 0;
  for (let i = 0; i < s.length; i++) x = (x + s.charCodeAt(i)) & 0xff;
  return x.toString(16).toUpperCase().padStart(2, '0');
};

function decodeEvent(payload: string): DecodeResult {
  let deviceId: string | undefined;
  let event: string | undefined;
  let ts: string | undefined;
  let vin: string | undefined;
  for (const pair of payload.split(',', 32)) {
    const at = pair.indexOf('=');
    if (at < 0) continue;
    const [key, value] = [pair.slice(0, at), pair.slice(at + 1)];
    if (key === 'ID') deviceId ??= value || undefined;
    else if (key === 'VIN') vin = value;
    else if (key === 'EV') event = value;
    else if (key === 'TS') ts = value;
  }
  if (!deviceId) return {};
  const result: DecodeResult = { deviceId };
  if (event !== undefined && ts !== undefined && /^\d{1,10}$/.test(event) && /^\d{1,20}$/.test(ts)) {
    const message = `1#EV=${event},RX=1,TS=${ts}`;
    result.reply = latin1(`${message}*${sum(message)}`);
  }
  if (vin) result.records = [{ attributes: { [Attr.vin]: vin } }];
  return result;
}

const num = (v: string, what: string): number => {
  const n = Number(v);
  if (v === '' || !Number.isFinite(n)) throw new DecodeError(`freematics: bad ${what}`);
  return n;
};

type Pending = { rec: DeviceRecord; date?: [number, number, number]; time?: [number, number, number, number] };

function finish(p: Pending, now: number, session: Session): DeviceRecord {
  const { rec } = p;
  if (p.time && p.date) rec.time = utc(p.date[2], p.date[1], p.date[0], p.time[0], p.time[1], p.time[2], p.time[3]);
  else if (p.time) rec.time = timeOfDay(now, p.time[0], p.time[1], p.time[2], p.time[3]);
  else rec.time = now;
  if (rec.lat !== undefined && rec.lng !== undefined) rememberFix(session, rec);
  else {
    delete rec.lat;
    delete rec.lng;
    withLastFix(rec, session);
    // nothing known yet: a not-valid fix at 0,0 as the device means it (the filter drops not-valid fixes)
    if (rec.lat === undefined) Object.assign(rec, { lat: 0, lng: 0, valid: false });
  }
  return rec;
}

function set(p: Pending, key: number, value: string): void {
  const { rec } = p;
  const a: Record<string, AttrValue> = rec.attributes;
  switch (key) {
    case 0x11: {
      const v = value.padStart(6, '0').slice(-6);
      p.date = [Number(v.slice(0, 2)), Number(v.slice(2, 4)), Number(v.slice(4))];
      break;
    }
    case 0x10: {
      const v = value.padStart(8, '0').slice(-8);
      if (!/^\d{8}$/.test(v)) throw new DecodeError('freematics: bad time');
      p.time = [Number(v.slice(0, 2)), Number(v.slice(2, 4)), Number(v.slice(4, 6)), Number(v.slice(6)) * 10];
      break;
    }
    case 0xa:
      rec.lat = num(value, 'latitude');
      if (Math.abs(rec.lat) > 90) throw new DecodeError('freematics: latitude out of range');
      rec.valid = true;
      break;
    case 0xb:
      rec.lng = num(value, 'longitude');
      if (Math.abs(rec.lng) > 180) throw new DecodeError('freematics: longitude out of range');
      rec.valid = true;
      break;
    case 0xc:
      rec.altitude = num(value, 'altitude');
      break;
    case 0xd:
      rec.speed = num(value, 'speed');
      break;
    case 0xe:
      rec.course = num(value, 'course');
      break;
    case 0xf:
      rec.satellites = num(value, 'satellites');
      break;
    case 0x12:
      rec.hdop = num(value, 'hdop');
      break;
    case 0x20:
      a.acceleration = value;
      break;
    case 0x24:
      a[Attr.battery] = num(value, 'battery') / 100;
      break;
    case 0x81:
      a[Attr.rssi] = num(value, 'rssi');
      break;
    case 0x82:
      a[Attr.deviceTemp] = num(value, 'temperature') / 10;
      break;
    case 0x104:
      a[Attr.engineLoad] = num(value, 'load');
      break;
    case 0x105:
      a[Attr.coolantTemp] = num(value, 'coolant');
      break;
    case 0x10c:
      a[Attr.rpm] = num(value, 'rpm');
      break;
    case 0x10d:
      a[Attr.obdSpeed] = num(value, 'speed');
      break;
    case 0x111:
      a[Attr.throttle] = num(value, 'throttle');
      break;
    default:
      a[indexed.io(key)] = value;
  }
}

function decodeData(id: string, payload: string, ctx: DecodeContext): DecodeResult {
  const session = ctx.session as Session;
  const records: DeviceRecord[] = [];
  let current: Pending | undefined;
  for (const pair of payload.split(',', 1024)) {
    const m = /^([0-9A-Fa-f]{1,4})[=:](.*)$/.exec(pair);
    if (!m) continue;
    const key = parseInt(m[1], 16);
    if (key === 0) {
      if (current) records.push(finish(current, ctx.now, session));
      if (records.length >= MAX_RECORDS) throw new DecodeError('freematics: too many records');
      current = { rec: { valid: false, attributes: {} } };
    } else if (current) set(current, key, m[2]);
  }
  if (current) records.push(finish(current, ctx.now, session));
  return records.length ? { deviceId: id, records } : { deviceId: id };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1');
  const start = s.indexOf('#');
  const end = s.indexOf('*');
  if (start <= 0 || end <= start) return {};
  const payload = s.slice(start + 1, end);
  if (payload.startsWith('EV')) return decodeEvent(payload);
  return decodeData(s.slice(0, start), payload, ctx);
}

export const protocol: Protocol = {
  name: 'freematics',
  defaultPort: 5170,
  transports: ['udp'],
  maxFrameSize: 4096,
  decode,
  commands: [],
};
