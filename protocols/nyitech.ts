/**
 * Nyitech binary protocol (OBD trackers), little-endian: `@@ | u16 frame length | 12-char device id | u16 type |
 * body | u16 checksum | CR LF`. Types: 0x1001 login, 0x2001/0x2002 live/history comprehensive reports,
 * 0x2003 alarm, 0x2004 fixed report; others carry nothing kept.
 * Location: `dd mm yy hh mm ss | u8 flags (bits 0-1 fix, 2 north, 3 east) | u32 lat, u32 lon (1/3600000 degree) |
 * u16 cm/s | u16 course x 10 | i16 altitude x 10`.
 * Comprehensive: `6-byte time | u8 has location | u8 has OBD | u8 has sensors | [location] | [u8 count, (u16 pid,
 * u8 length, value)*] | u32 fuel used / 100 l | u32 trip odometer`.
 * Alarm: `u16 random | u8 tag | u8 type | u16 threshold | u16 value | 6-byte time | location`.
 * The devices expect no answer to these.
 */
import { Alarm, Attr } from './attributes.ts';
import { lengthFieldFramer, Reader } from './binary.ts';
import { setObdValue } from './obd.ts';
import { utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const MSG_LOGIN = 0x1001;
const MSG_COMPREHENSIVE_LIVE = 0x2001;
const MSG_COMPREHENSIVE_HISTORY = 0x2002;
const MSG_ALARM = 0x2003;
const MSG_FIXED = 0x2004;
const CM_PER_S_TO_KMH = 0.036;
const ALARMS: Record<number, string> = { 0x09: Alarm.hardAcceleration, 0x0a: Alarm.hardBraking, 0x0b: Alarm.hardCornering, 0x0e: Alarm.sos };

function readLocation(r: Reader, rec: DeviceRecord): void {
  const [dd, mo, yy, h, m, s] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  rec.time = utc(yy, mo, dd, h, m, s);
  const flags = r.u8();
  rec.valid = (flags & 0x03) > 0;
  const lat = r.u32le() / 3_600_000;
  const lng = r.u32le() / 3_600_000;
  if (lat > 90 || lng > 180) throw new DecodeError('nyitech: coordinates out of range');
  rec.lat = flags & 0x04 ? lat : -lat;
  rec.lng = flags & 0x08 ? lng : -lng;
  rec.speed = r.u16le() * CM_PER_S_TO_KMH;
  rec.course = (r.u16le() / 10) % 360;
  rec.altitude = r.i16le() / 10;
}

function readComprehensive(r: Reader, rec: DeviceRecord): void {
  r.skip(6); // device time
  const hasLocation = r.u8() > 0;
  const hasObd = r.u8() > 0;
  r.skip(1); // sensors
  if (hasLocation) readLocation(r, rec);
  if (hasObd) {
    for (let n = r.u8(); n > 0; n--) {
      const pid = r.u16le();
      const length = r.u8();
      if (length === 1) setObdValue(rec.attributes, pid, r.i8());
      else if (length === 2) setObdValue(rec.attributes, pid, r.i16le());
      else if (length === 4) setObdValue(rec.attributes, pid, r.i32le());
      else r.skip(length);
    }
  }
  rec.attributes[Attr.fuelUsed] = r.u32() / 100;
  rec.attributes.tripOdometer = r.u32();
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 4);
  const id = r.ascii(12);
  if (!/^[\x21-\x7e]{12}$/.test(id)) throw new DecodeError('nyitech: bad device id');
  const type = r.u16le();
  const rec: DeviceRecord = { attributes: {} };
  if (type === MSG_COMPREHENSIVE_LIVE || type === MSG_COMPREHENSIVE_HISTORY) readComprehensive(r, rec);
  else if (type === MSG_ALARM) {
    r.skip(3); // random number, tag
    const alarm = ALARMS[r.u8()];
    if (alarm) rec.attributes[Attr.alarm] = alarm;
    r.skip(4 + 6); // threshold, value, time
    readLocation(r, rec);
  } else if (type === MSG_FIXED) {
    r.skip(6);
    readLocation(r, rec);
  } else if (type === MSG_LOGIN) readLocation(r, rec);
  else return { deviceId: id };
  rec.time ??= ctx.now;
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'nyitech',
  defaultPort: 5182,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  // u16le at offset 2 is the length of the whole frame
  createFramer: () => lengthFieldFramer('nyitech', 2, 2, -4, MAX_FRAME, true),
  decode,
  commands: [],
};
