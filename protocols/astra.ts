/**
 * Astra Telematics binary protocol (big-endian), TCP or UDP: `u8 protocol letter | u16 length of the whole
 * message | body | u16 checksum`. Every message is answered with one byte, 0x06 (ACK).
 * IMEIs are `u32` (8 decimal digits) then `u24` (7 digits); times are seconds since the GPS epoch
 * (1980-01-06).
 *  - `K`: IMEI, then fixed 28-byte records (index, lat/lon 1e-6 degrees, time, speed 2 km/h, course 2°,
 *    reason, status, IO, ADC, battery, supply, max speed, accelerometer, trip distance, idle time,
 *    altitude 20 m, satellites and signal, geofence events), plus driver id, odometer (km) and engine
 *    hours when status bit 8 is set; status bit 6 (an extension this decoder leaves alone) ends the list.
 *  - `X`: record count, IMEI, then records of `index | u48 mask | time | u32 reason | u16 status` and the
 *    blocks the mask names (bit 0 supply and battery level, 1 fix, 2 states, 3 ADC, 4 accelerometer,
 *    5 satellites and signal, 6 network, 7 geofences, 8 driver, 9 trailer, 10 axle weight, 11 odometer,
 *    12 FMS, 13 OBD, 14 DTCs, 15 tachograph, 16 engine, 17 refrigeration, 18 temperatures, 19 alarms,
 *    32 sensors). A record without a fix is a status record.
 */
import { Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { lengthFieldFramer } from './framers.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const ACK = Buffer.from([0x06]);
const GPS_EPOCH = Date.UTC(1980, 0, 6);

const readImei = (r: Reader): string => String(r.u32()).padStart(8, '0') + String(r.u24()).padStart(7, '0');
const readTime = (r: Reader): number => GPS_EPOCH + r.u32() * 1000;

function readLatLng(r: Reader, rec: DeviceRecord): void {
  rec.lat = r.i32() / 1e6;
  rec.lng = r.i32() / 1e6;
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('astra: coordinates out of range');
}

function decodeK(r: Reader): DecodeResult {
  const deviceId = readImei(r);
  const records: DeviceRecord[] = [];
  while (r.remaining > 2) {
    const rec: DeviceRecord = { valid: true, attributes: {} };
    const a = rec.attributes;
    r.skip(1); // index
    readLatLng(r, rec);
    rec.time = readTime(r);
    rec.speed = r.u8() * 2;
    rec.course = (r.u8() * 2) % 360;
    a[Attr.event] = r.u24();
    const status = r.u16();
    a[Attr.status] = status;
    a[indexed.io(1)] = r.u8();
    a[indexed.adc(1)] = r.u8();
    a.batteryRaw = r.u8();
    a.powerRaw = r.u8();
    r.skip(7); // max journey speed, accelerometer
    a.tripOdometer = r.u16();
    r.skip(2); // journey idle time
    rec.altitude = r.u8() * 20;
    const quality = r.u8();
    rec.satellites = quality & 0x0f;
    a[Attr.rssi] = quality >> 4;
    r.skip(1); // geofence events
    if (status & 0x100) {
      a[Attr.driverUniqueId] = r.ascii(7);
      a[Attr.odometer] = r.u24() * 1000;
      a[Attr.hours] = r.u16() * 3_600_000;
    }
    records.push(rec);
    if (status & 0x40) break; // extension data follows
  }
  return { deviceId, records, reply: ACK };
}

const bit = (mask: number, n: number): boolean => Math.floor(mask / 2 ** n) % 2 === 1;

/** Wheel speeds, rpm, pedal and load, trip distance and coolant: the head shared by the FMS and OBD blocks. */
function vehicleBlock(r: Reader, a: DeviceRecord['attributes']): void {
  a.wheelSpeedMax = r.u8();
  a.wheelSpeedAvg = r.u8();
  a.rpmMax = r.u8() * 32;
  a.rpmAvg = r.u8() * 32;
  a.acceleratorMax = r.u8();
  a.acceleratorAvg = r.u8();
  a.engineLoadMax = r.u8();
  a.engineLoadAvg = r.u8();
  a.tripOdometer = r.u16() * 100;
  a[Attr.coolantTemp] = r.i8() + 40;
}

function decodeXRecord(r: Reader): DeviceRecord {
  const rec: DeviceRecord = { attributes: {} };
  const a = rec.attributes;
  a[Attr.index] = r.u8();
  const mask = r.u16() * 2 ** 32 + r.u32();
  const deviceTime = readTime(r);
  a[Attr.event] = r.u32();
  a[Attr.status] = r.u16();
  if (bit(mask, 0)) {
    a[Attr.power] = r.u8() / 5;
    a[Attr.batteryLevel] = r.u8();
  }
  if (bit(mask, 1)) {
    rec.valid = true;
    rec.time = readTime(r);
    readLatLng(r, rec);
    rec.speed = r.u8() * 2;
    r.skip(1); // max speed since the last report
    rec.course = (r.u8() * 2) % 360;
    rec.altitude = r.u8() * 20;
    a.tripOdometer = r.u16() * 100;
  } else {
    rec.time = deviceTime;
  }
  if (bit(mask, 2)) r.skip(4); // states, changes
  if (bit(mask, 3)) r.skip(4); // adc1, adc2
  if (bit(mask, 4)) {
    for (const axis of ['xMax', 'xMin', 'yMax', 'yMin', 'zMax', 'zMin']) a[axis] = r.i8();
    a.idleHours = r.u16();
  }
  if (bit(mask, 5)) {
    const v = r.u8();
    rec.satellites = v & 0x0f;
    a[Attr.rssi] = v >> 4;
  }
  if (bit(mask, 6)) r.skip(4); // mcc, mnc
  if (bit(mask, 7)) r.skip(1); // geofences
  if (bit(mask, 8)) r.skip(9); // driver id source and id
  if (bit(mask, 9)) r.skip(12); // trailer id source, id and status
  if (bit(mask, 10)) a.axleWeight = r.u16();
  if (bit(mask, 11)) {
    a[Attr.odometer] = r.u24() * 1000;
    a[Attr.hours] = r.u16() * 3_600_000;
  }
  if (bit(mask, 12)) {
    vehicleBlock(r, a);
    a.fmsStatus = r.u16();
    a.fmsEvents = r.u16();
    a[Attr.fuelLevel] = r.u8();
    a[Attr.fuelUsed] = r.u32() * 0.5;
  }
  if (bit(mask, 13)) {
    vehicleBlock(r, a);
    a.obdStatus = r.u16();
    a.obdEvents = r.u16();
    a[Attr.fuelLevel] = r.u8();
    a[Attr.fuelUsed] = r.u16() / 10;
  }
  if (bit(mask, 14)) {
    const codes = [1, 2, 3, 4, 5].map(() => r.ascii(5).replace(/\0/g, '').trim()).filter(Boolean);
    if (codes.length) a[Attr.dtcs] = codes.join(' ');
  }
  if (bit(mask, 15)) {
    a[Attr.odometer] = r.u24() * 1000;
    a[Attr.hours] = r.u16() * 3_600_000;
    a.axleWeight = r.u16();
    a.tripFuelUsed = r.u16() / 10;
    a.tripCruise = r.u16();
    a.serviceOdometer = r.u16() * 5;
  }
  if (bit(mask, 16)) {
    a[Attr.odometer] = r.u24() * 1000;
    a[Attr.hours] = r.u16() * 3_600_000;
    r.skip(4); // time and distance with the MIL on
  }
  if (bit(mask, 17)) {
    for (let j = 1; j <= 6; j++) a[indexed.temp(j)] = r.i16() / 10;
    for (let j = 1; j <= 3; j++) a[`setpoint${j}`] = r.i8() * 0.5;
    r.skip(10); // refrigerator fuel, engine and standby hours, status, alarm flags
  }
  if (bit(mask, 18)) for (let j = 1; j <= 4; j++) a[indexed.temp(j)] = (r.u16() - 550) / 10;
  if (bit(mask, 19)) {
    a.alarmCount = r.u8();
    a.alarmQueue = r.hex(16);
  }
  if (bit(mask, 32)) for (let j = 1; j <= 6; j++) a[`sensor${j}`] = r.u24();
  return rec;
}

function decodeX(r: Reader): DecodeResult {
  const count = r.u8();
  const deviceId = readImei(r);
  const records: DeviceRecord[] = [];
  for (let i = 0; i < count; i++) records.push(decodeXRecord(r));
  return { deviceId, records, reply: ACK };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  const letter = r.u8();
  r.skip(2); // length
  if (letter === 0x4b) return decodeK(r);
  if (letter === 0x58) return decodeX(r);
  return { reply: ACK };
}

export const protocol: Protocol = {
  name: 'astra',
  defaultPort: 5103,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  // the u16 after the protocol letter is the length of the whole message
  createFramer: () => lengthFieldFramer('astra', { offset: 1, size: 2, adjust: -3 }, MAX_FRAME),
  decode,
  commands: [],
};
