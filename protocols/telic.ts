/**
 * Telic (SBC, Picotrack) text reports:
 * `<4 digits><id 6 or 15 digits><event 1-2 digits>,<event time>,<n>,<ddmmyyhhmmss>,<lon>,<lat>,<fix>,<km/h>,<course>,<sats>,<7 fields>,<battery>,...`
 * Coordinates are 1e-6 degrees (8+ digit longitude) or 1e-4 degrees (older firmware). A fix value of 1
 * means no fix. Other records (`...|...` identification, `TTUV`, `TLOC`) carry no position.
 * Frames: either a u32 little-endian length (< 1024) and that many bytes, or text up to a NUL byte.
 * The devices expect no answer.
 */
import { Alarm, Attr } from './attributes.ts';
import { utc } from './text.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024 + 4;

/**
 * A NUL right at the start of a connection's stream is held back until more bytes come (the
 * captured device sends one before its first report; its framer gives nothing for it); any later
 * NUL is the end of an empty frame (after a length-prefixed frame the device still sends its NUL).
 */
function createFramer(): Framer {
  let started = false;
  let heldNul = false;
  return {
    next(buf) {
      if (!buf.length) return null;
      if (buf[0] === 0) {
        if (!started && !heldNul) {
          heldNul = true;
          return null;
        }
        started = true;
        return { frame: buf.subarray(0, 0), consumed: 1 };
      }
      if (buf.length < 4) return null;
      const length = buf.readUInt32LE(0);
      if (length < 1024) {
        if (buf.length < length + 4) return null;
        started = true;
        return { frame: buf.subarray(4, 4 + length), consumed: 4 + length };
      }
      const end = buf.indexOf(0);
      if (end < 0) {
        if (buf.length > MAX_FRAME) throw new FrameError('telic: no NUL terminator');
        return null;
      }
      if (end > MAX_FRAME) throw new FrameError('telic: frame too long');
      started = true;
      return { frame: buf.subarray(0, end), consumed: end + 1 };
    },
  };
}

const REPORT =
  /^\d{4}(\d{6}|\d{15})(\d{1,2}),\d{12},\d+,(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),(?:(-?\d{8,}),(-?\d{7,})|(-?\d+),(-?\d+)),(\d),(\d+),(\d+),(\d+)?,(?:[^,]*,){7}(\d+),/;

const ALARMS: Record<number, string> = { 1: Alarm.powerOn, 2: Alarm.sos, 5: Alarm.powerOff, 7: Alarm.geofenceEnter, 8: Alarm.geofenceExit, 22: Alarm.lowBattery, 25: Alarm.movement };

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1');
  const m = REPORT.exec(s);
  if (!m) {
    const login = /^\d{4}(\d{6,15})\|/.exec(s); // identification: `0026<id>|<mcc>|<mnc>|...`
    return login ? { deviceId: login[1] } : {};
  }
  const [, id, eventS, dd, mo, yy, hh, mi, ss, lon6, lat6, lon4, lat4, fix, speed, course, sats, battery] = m;
  const event = Number(eventS);
  const [lng, lat] = lon6 !== undefined ? [Number(lon6) / 1e6, Number(lat6) / 1e6] : [Number(lon4) / 1e4, Number(lat4) / 1e4];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('telic: coordinates out of range');
  const rec: DeviceRecord = {
    time: utc(Number(yy), Number(mo), Number(dd), Number(hh), Number(mi), Number(ss)),
    lat,
    lng,
    valid: Number(fix) !== 1,
    speed: Number(speed),
    course: Number(course),
    attributes: { [Attr.event]: event, batteryRaw: Number(battery) },
  };
  if (sats !== undefined) rec.satellites = Number(sats);
  if (ALARMS[event]) rec.attributes[Attr.alarm] = ALARMS[event];
  if (event === 11 || event === 12) rec.attributes[Attr.ignition] = event === 11;
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'telic',
  defaultPort: 5067,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
