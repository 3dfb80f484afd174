/**
 * Starcom (UDP): `|key=value,key=value,...|` datagrams. Known keys: unit (identity), gps_valid, datetime_actual
 * (`yyyy/mm/dd hh:mm:ss`, UTC), latitude, longitude, altitude, velocity (km/h), heading, eventid, odometer (km),
 * satellites, ignition, door, arm, fuel, rpm, main_voltage, backup_voltage, analog1..3; any other key is kept
 * as a text attribute of its own name. A time before 2000 (a device without a clock) is replaced by the time of
 * arrival and the position is then not valid. The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const TIME = /^(\d{4})\/(\d\d)\/(\d\d) (\d\d):(\d\d):(\d\d)$/;
const KEY = /^[a-z][a-z0-9_]{0,31}$/;
const Y2K = Date.UTC(2000, 0, 1);

function finite(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new DecodeError('starcom: bad number');
  return n;
}

type Field = (rec: DeviceRecord, v: string) => void;
const attr = (name: string, convert: (v: string) => AttrValue): Field => (rec, v) => (rec.attributes[name] = convert(v));
const flag = (v: string) => finite(v) !== 0;

const FIELDS: Record<string, Field> = {
  gps_valid: (rec, v) => (rec.valid = flag(v)),
  datetime_actual: (rec, v) => {
    const t = TIME.exec(v);
    if (!t) throw new DecodeError('starcom: bad time');
    rec.time = Date.UTC(+t[1], +t[2] - 1, +t[3], +t[4], +t[5], +t[6]);
  },
  latitude: (rec, v) => (rec.lat = finite(v)),
  longitude: (rec, v) => (rec.lng = finite(v)),
  altitude: (rec, v) => (rec.altitude = finite(v)),
  velocity: (rec, v) => (rec.speed = finite(v)),
  heading: (rec, v) => (rec.course = finite(v) % 360),
  satellites: (rec, v) => (rec.satellites = finite(v)),
  eventid: attr(Attr.event, finite),
  odometer: attr(Attr.odometer, (v) => Math.round(finite(v) * 1000)),
  ignition: attr(Attr.ignition, flag),
  door: attr(Attr.door, flag),
  arm: attr(Attr.armed, flag),
  fuel: attr(Attr.fuel, finite),
  rpm: attr(Attr.rpm, finite),
  main_voltage: attr(Attr.power, finite),
  backup_voltage: attr(Attr.battery, finite),
  analog1: attr(indexed.adc(1), finite),
  analog2: attr(indexed.adc(2), finite),
  analog3: attr(indexed.adc(3), finite),
};

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1');
  const from = s.indexOf('|');
  const to = s.lastIndexOf('|');
  if (from < 0 || to <= from) throw new DecodeError('starcom: no |...|');
  const rec: DeviceRecord = { attributes: {} };
  let unit: string | undefined;
  for (const entry of s.slice(from + 1, to).split(',')) {
    const eq = entry.indexOf('=');
    if (eq <= 0) continue;
    const key = entry.slice(0, eq);
    const value = entry.slice(eq + 1);
    if (key === 'unit') unit = value;
    else if (FIELDS[key]) FIELDS[key](rec, value);
    else if (KEY.test(key)) rec.attributes[key] = value.slice(0, 64);
  }
  if (!unit) throw new DecodeError('starcom: no unit');
  if (rec.lat === undefined || rec.lng === undefined || Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) {
    delete rec.lat;
    delete rec.lng;
  }
  rec.valid ??= false;
  if (rec.time === undefined || rec.time < Y2K) Object.assign(rec, { time: ctx.now, valid: false });
  return { deviceId: unit, records: [rec] };
}

export const protocol: Protocol = {
  name: 'starcom',
  defaultPort: 5190,
  transports: ['udp'],
  maxFrameSize: 2048,
  decode,
  commands: [],
};
