/**
 * NTCB telemetry records (`*>T` one record, `*>A` several): fixed layouts named F1.0 .. F6.0 by a format
 * byte (a zero first byte means a 16-bit LE format number). Every layout starts
 * `index u32 | event u16 | event time (h m s d mo y)`, then status, IO and, in the layouts with
 * navigation (F2.0, F5.x, F6.0), the fix: nav state, fix time (month from 0), coordinates (radians as
 * floats; F6.0: 1/10000 minute integers and altitude), speed km/h, course, odometer.
 */
import { Alarm, Attr, indexed } from '../attributes.ts';
import { Reader } from '../binary.ts';
import { DecodeError, type DeviceRecord } from '../types.ts';

const F10 = 0x01;
const F20 = 0x02;
const F30 = 0x03;
const F40 = 0x04;
const F50 = 0x05;
const F51 = 0x15;
const F52 = 0x25;
const F60 = 0x06;
const KNOWN = new Set([F10, F20, F30, F40, F50, F51, F52, F60]);
const is = (format: number, ...formats: number[]) => formats.includes(format);

/** `h m s d mo y` with the month counted from 0, or undefined when the parts are out of range. */
function time6(r: Reader): number | undefined {
  const [h, mi, s, d, mo, y] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  if (h > 23 || mi > 59 || s > 59 || d < 1 || d > 31 || mo > 11) return undefined;
  return Date.UTC(2000 + y, mo, d, h, mi, s);
}

const RAD = 180 / Math.PI;

/** Four thermometers, signed degrees; -128 means no sensor. */
function temperatures(r: Reader, a: DeviceRecord['attributes']): void {
  for (let i = 1; i <= 4; i++) {
    const t = r.i8();
    if (t !== -128) a[indexed.temp(i)] = t;
  }
}

export function decodeNtcbRecord(r: Reader): DeviceRecord {
  const format = r.peekU8() === 0 ? r.u16le() : r.u8();
  if (!KNOWN.has(format)) throw new DecodeError(`navis: unknown NTCB format 0x${format.toString(16)}`);
  const a: DeviceRecord['attributes'] = { format };
  const rec: DeviceRecord = { attributes: a };
  a[Attr.index] = r.u32le();
  a[Attr.event] = r.u16le();
  r.skip(6); // event time: the record's time is its fix time

  const guard = r.u8();
  if (format === F60) {
    a[Attr.armed] = (guard & 1) === 1;
    if (guard & 2) a[Attr.alarm] = Alarm.general;
  } else {
    a.guard = guard & 0x7f; // guard mode number
    if (guard & 0x80) a[Attr.alarm] = Alarm.general;
  }
  a[Attr.status] = r.u8();
  a[Attr.rssi] = r.u8();

  if (is(format, F10, F20, F30)) a[Attr.output] = r.u16le();
  else if (is(format, F50, F51, F52)) {
    const ext = r.u8(); // outputs 1-2, satellites above
    a[Attr.output] = ext & 3;
    rec.satellites = ext >> 2;
  } else a[Attr.output] = r.u8() & 0x0f;

  a[Attr.input] = is(format, F10, F20, F30, F40) ? r.u16le() : r.u8();
  a[Attr.power] = r.u16le() / 1000;
  a[Attr.battery] = r.u16le() / 1000;
  if (is(format, F10, F20, F30)) a[indexed.temp(1)] = r.i16le();
  if (is(format, F10, F20, F50, F51, F52, F60)) {
    a[indexed.adc(1)] = r.u16le();
    a[indexed.adc(2)] = r.u16le();
  }
  if (format === F60) a[indexed.adc(3)] = r.u16le();
  if (is(format, F20, F50, F51, F52, F60)) {
    a[indexed.count(1)] = r.u32le();
    a[indexed.count(2)] = r.u32le();
  }
  if (format === F60) {
    r.skip(28); // fuel level sensors (not decoded)
    temperatures(r, a);
    const axle = r.i32le();
    const rpm = r.u16le();
    if (axle !== -1) a.axleWeight = axle;
    if (rpm !== 0xffff) a[Attr.rpm] = rpm;
  }
  if (is(format, F20, F50, F51, F52, F60)) {
    const nav = r.u8();
    rec.valid = (nav & 0x02) !== 0;
    if (format === F60) rec.satellites = nav >> 2;
    rec.time = time6(r);
    if (format === F60) {
      rec.lat = r.i32le() / 600000;
      rec.lng = r.i32le() / 600000;
      rec.altitude = r.i32le() / 10;
    } else {
      rec.lat = r.f32le() * RAD;
      rec.lng = r.f32le() * RAD;
    }
    const speed = r.f32le();
    if (speed >= 0 && speed < 2000) rec.speed = speed;
    rec.course = r.u16le() % 360;
    a[Attr.odometer] = Math.round(r.f32le() * 1000);
    a[Attr.distance] = Math.round(r.f32le() * 1000);
    r.skip(4); // seconds of the last segment, with and without a fix
    if (!(Math.abs(rec.lat) <= 90 && Math.abs(rec.lng) <= 180)) {
      delete rec.lat;
      delete rec.lng;
    }
  }
  if (is(format, F51, F52)) r.skip(15); // reserved
  if (is(format, F40, F52)) temperatures(r, a);
  if (rec.time === undefined) delete rec.valid;
  return rec;
}
