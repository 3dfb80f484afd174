/**
 * MiniFinder (older text format, Pico/Atto/Zepto personal trackers). Messages end with `;` (some
 * firmware adds a NUL).
 *
 *   `!1,<imei>[,<firmware>,...]`   identification
 *   `!A,<d/m/yy>,<h:m:s>,<lat>,<lon>,...`                                  fix only
 *   `!C,<date>,<time>,<lat>,<lon>,<km/h>,<course>,<flags hex>,<alt>,<battery %>,...`
 *   `!B|!D,... same ...,<sats used>,<sats seen>,<hdop>`                    buffered / live
 *   `!3,<text>` command answer, `!4,<n>,<phone1>,<phone2>,<phone3>,...` numbers, `!5,<rssi>,<gps>,<battery %>` status
 * The devices expect no answer. Commands are `<password><code><args>` text (password 123456 by default).
 */
import { Alarm, Attr } from './attributes.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { latin1, utc } from './text.ts';
import { DecodeError, FrameError, type AttrValue, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;

interface Session {
  last?: LastFix;
}

/** Frames end at `;` (a NUL right after it belongs to the delimiter). */
function createFramer(): Framer {
  return {
    next(buf) {
      let start = 0;
      while (start < buf.length && (buf[start] === 0 || buf[start] === 0x0d || buf[start] === 0x0a)) start++;
      const end = buf.indexOf(0x3b, start);
      if (end < 0 || end - start > MAX_FRAME) {
        if (buf.length - start > MAX_FRAME) throw new FrameError('minifinder: no ; within max frame size');
        return null;
      }
      const consumed = end + 1 < buf.length && buf[end + 1] === 0 ? end + 2 : end + 1;
      return { frame: buf.subarray(start, end), consumed };
    },
  };
}

const FIX = '(\\d+)/(\\d+)/(\\d+),(\\d+):(\\d+):(\\d+),(-?\\d+\\.\\d+),(-?\\d+\\.\\d+),';
const STATE = '(\\d+\\.?\\d*),(\\d+\\.?\\d*),([0-9a-fA-F]+),(-?\\d+\\.\\d+),(\\d+),';
const A = new RegExp(`^!A,${FIX}`);
const C = new RegExp(`^!C,${FIX}${STATE}`);
const BD = new RegExp(`^![BD],${FIX}${STATE}(\\d+),(\\d+),(\\d+\\.?\\d*)`);

function fix(m: RegExpExecArray, type: string): DeviceRecord {
  const [lat, lng] = [Number(m[7]), Number(m[8])];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('minifinder: coordinates out of range');
  return { time: utc(Number(m[3]), Number(m[2]), Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6])), lat, lng, attributes: { type } };
}

function addAlarm(a: Record<string, AttrValue>, alarm: string): void {
  a[Attr.alarm] = a[Attr.alarm] ? `${a[Attr.alarm]},${alarm}` : alarm;
}

/** Speed, course, the flag word (validity, alarms, signal, charging), altitude, battery. */
function state(rec: DeviceRecord, m: RegExpExecArray): void {
  rec.speed = Number(m[9]);
  const course = Number(m[10]);
  rec.course = course > 360 ? 0 : course;
  const flags = parseInt(m[11].slice(-8), 16);
  const a = rec.attributes;
  rec.valid = (flags & 3) > 0;
  if (flags & 0x2) a.approximate = true;
  if (flags & (1 << 2)) addAlarm(a, Alarm.fault);
  if (flags & (1 << 6)) addAlarm(a, Alarm.sos);
  if (flags & (1 << 7)) addAlarm(a, Alarm.overspeed);
  if (flags & (1 << 8)) addAlarm(a, Alarm.fallDown);
  if (flags & (7 << 9)) addAlarm(a, Alarm.geofence);
  if (flags & (1 << 12)) addAlarm(a, Alarm.lowBattery);
  if (flags & (3 << 14)) addAlarm(a, Alarm.movement);
  a[Attr.rssi] = (flags >>> 16) & 0x1f;
  a[Attr.charge] = (flags & (1 << 22)) !== 0;
  rec.altitude = Number(m[12]);
  a[Attr.batteryLevel] = Number(m[13]);
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const session = ctx.session as Session;
  const s = frame.toString('latin1').replace(/[;\0\r\n]+$/, '');
  if (s.startsWith('!1,')) {
    const end = s.indexOf(',', 3);
    const id = s.slice(3, end < 0 ? undefined : end);
    return id ? { deviceId: id } : {};
  }
  if (!/^![345A-D],/.test(s)) return {};
  const type = s[1];
  let rec: DeviceRecord | undefined;
  if (type === '3') rec = withLastFix({ attributes: { type, [Attr.result]: s.slice(3) } }, session);
  else if (type === '4' || type === '5') {
    const v = s.split(',');
    const a: Record<string, AttrValue> = { type };
    if (type === '4') {
      for (let i = 1; i <= 3; i++) if (v[i + 1]) a[`phone${i}`] = v[i + 1];
    } else {
      if (/^\d+$/.test(v[1] ?? '')) a[Attr.rssi] = Number(v[1]);
      if (/^\d+$/.test(v[3] ?? '')) a[Attr.batteryLevel] = Number(v[3]);
    }
    rec = withLastFix({ attributes: a }, session);
  } else {
    const re = type === 'A' ? A : type === 'C' ? C : BD;
    const m = re.exec(s);
    if (!m) return {};
    rec = fix(m, type);
    if (type === 'A') rec.valid = true;
    else state(rec, m);
    if (type === 'B' || type === 'D') {
      rec.satellites = Number(m[14]);
      rec.attributes.satVisible = Number(m[15]);
      rec.hdop = Number(m[16]);
    }
    if (type === 'B') rec.attributes[Attr.archive] = true;
    rememberFix(session, rec);
  }
  return { records: [rec] };
}

// ---------------------------------------------------------------------------------------- commands

/** `GMT+1`, `UTC-05:30` or a zone name -> whole hours `+01` (the zone's standard offset). */
function timezoneHours(zone: string): string {
  let minutes: number;
  const m = /^(?:GMT|UTC)?\s*([+-])(\d{1,2})(?::?(\d\d))?$/.exec(zone.trim());
  if (m) minutes = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
  else if (/^(GMT|UTC)$/.test(zone.trim())) minutes = 0;
  else {
    const offset = (month: number) => {
      const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(Date.UTC(2025, month, 1)).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
      const o = /GMT([+-])(\d\d):(\d\d)/.exec(name);
      return o ? (o[1] === '-' ? -1 : 1) * (Number(o[2]) * 60 + Number(o[3])) : 0;
    };
    minutes = Math.min(offset(0), offset(6)); // daylight saving only ever adds
  }
  const hours = Math.trunc(minutes / 60);
  return `${hours < 0 ? '-' : '+'}${String(Math.abs(hours)).padStart(2, '0')}`;
}

const flag = (a: Command['attributes']) => (a.enable === true || a.enable === 'true' || a.enable === 1 || a.enable === '1' ? '1' : '0');
const COMMANDS: Record<string, (a: Command['attributes']) => string> = {
  setTimezone: (a) => `L${timezoneHours(String(a.timezone ?? 'GMT'))}`,
  voiceMonitoring: (a) => `P${flag(a)}`,
  alarmSpeed: (a) => `J1${a.data ?? ''}`,
  alarmGeofence: (a) => `R1${a.radius ?? ''}`,
  alarmVibration: (a) => `W1,${a.data ?? ''}`,
  setAgps: (a) => `AGPS${flag(a)}`,
  alarmFall: (a) => `F${flag(a)}`,
  modePowerSaving: (a) => `SP${flag(a)}`,
  modeDeepSleep: (a) => `DS${flag(a)}`,
  sosNumber: (a) => `${['A', 'B', 'C'][Number(a.index ?? 0)] ?? 'A'}1,${a.phone ?? ''}`,
  setIndicator: (a) => `LED${a.data ?? ''}`,
  custom: (a) => String(a.data ?? ''),
};

function encode(command: Command, _ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`minifinder: unsupported command ${command.type}`);
  return latin1(`${command.attributes.devicePassword ?? '123456'}${build(command.attributes)}`);
}

export const protocol: Protocol = {
  name: 'minifinder',
  defaultPort: 5062,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  encode,
};
