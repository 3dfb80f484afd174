/**
 * Radshid binary protocol: `u32le payload length | u8 packet tag | u32 serial number | u8 event count |
 * events`. An event (big-endian):
 *   `u8 version | u8 event code | 5-byte driver id | u16 engine minutes | u32 unix time | u8 GPS km/h |
 *    u8 sensor km/h | u8 max GPS km/h | u8 max sensor km/h | u16 rpm | u32 odometer | u32 sensor odometer |
 *    u8 io (bit 7 charging, bit 6 ignition, bits 0-3 inputs) | u8 fix (1 = none) | i32 lat, i32 lon (1e-7) |
 *    i16 altitude | u16 course | u8 satellites | u8 pdop x 10 | u8 extra length | extra`
 * An extra starting 0x07 carries firmware, signal, power, battery level, temperature and humidity (little-endian).
 * Reply: `u32le 7 | 0x82 | packet tag | u32le payload length | 0x01` to every packet.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { lengthFieldFramer } from './framers.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 65536;

const ALARMS: Record<number, string> = {
  0xe2: Alarm.powerCut,
  0xe3: Alarm.powerRestored,
  0xe4: Alarm.gpsAntennaCut,
  0xf1: Alarm.gpsAntennaCut,
  0xf2: Alarm.gpsAntennaCut,
  0xe5: Alarm.vibration,
  0xe7: Alarm.fatigueDriving,
  0xf7: Alarm.fatigueDriving,
  0xee: Alarm.overspeed,
  0xef: Alarm.overspeed,
  0xf0: Alarm.lowBattery,
  0xf9: Alarm.jamming,
};

function readExtra(r: Reader, rec: DeviceRecord): void {
  const a = rec.attributes;
  a.versionFw = r.u16le();
  r.skip(4 + 4 + 2 + 2 + 2 + 2 + 2); // point counter, live time, resets, stored points, SIM charge, pause, off time
  a[Attr.rssi] = r.u8();
  r.skip(1); // device status
  a[Attr.power] = r.u8() / 10;
  a[Attr.batteryLevel] = r.u8();
  r.skip(2); // saved pictures, reset source
  a[indexed.temp(1)] = r.i32le() / 10;
  a.humidity = r.i32le() / 10;
}

function readEvent(r: Reader): DeviceRecord {
  r.skip(1); // event version
  const event = r.u8();
  const rec: DeviceRecord = { attributes: { [Attr.event]: event } };
  const a = rec.attributes;
  if (ALARMS[event]) a[Attr.alarm] = ALARMS[event];
  const driver = r.u32() * 256 + r.u8();
  if (driver) a[Attr.driverUniqueId] = String(driver);
  a[Attr.hours] = r.u16() * 60_000;
  rec.time = r.u32() * 1000;
  rec.speed = r.u8();
  a[Attr.obdSpeed] = r.u8();
  r.skip(2); // maximum speeds
  a[Attr.rpm] = r.u16();
  a[Attr.odometer] = r.u32();
  r.skip(4); // sensor odometer
  const io = r.u8();
  a[Attr.charge] = (io & 0x80) !== 0;
  a[Attr.ignition] = (io & 0x40) !== 0;
  a[Attr.input] = io & 0x0f;
  rec.valid = r.u8() !== 0x01;
  rec.lat = r.i32() / 1e7;
  rec.lng = r.i32() / 1e7;
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('radshid: coordinates out of range');
  rec.altitude = r.i16();
  rec.course = r.u16() % 360;
  rec.satellites = r.u8();
  a.pdop = r.u8() / 10;
  const length = r.u8();
  const extra = new Reader(r.bytes(length));
  if (length > 0 && extra.u8() === 0x07) readExtra(extra, rec);
  return rec;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  const length = r.u32le();
  const tag = r.u8();
  const serial = r.u32();
  const count = r.u8();
  const records: DeviceRecord[] = [];
  for (let i = 0; i < count; i++) records.push(readEvent(r));
  const reply = Buffer.alloc(11);
  reply.writeUInt32LE(7, 0);
  reply[4] = 0x82;
  reply[5] = tag;
  reply.writeUInt32LE(length, 6);
  reply[10] = 0x01;
  return { deviceId: String(serial), records, reply };
}

export const protocol: Protocol = {
  name: 'radshid',
  defaultPort: 5265,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  // u32 little-endian length of what follows it
  createFramer: () => lengthFieldFramer('radshid', { offset: 0, size: 4, adjust: 0, littleEndian: true }, MAX_FRAME),
  decode,
  commands: [],
};
