/**
 * Coban / TK103-2 ("GPS103") text protocol.
 *
 *   login      `##,imei:359586015829802,A;`          -> `LOAD`
 *   heartbeat  `359586015829802;`                     -> `ON`
 *   report     `imei:<imei>,<keyword>,<local yymmddhhmm>,<rfid/phone>,F,<utc hhmmss>,A,<lat>,N,<lon>,E,<knots>,<course>,<alt>,<acc>,<door>,<fuel1>%,<fuel2>%,<temp>;`
 *              (`L,,,<lac>,,<cid>,,,` instead of the F part when there is no GNSS fix)
 *   OBD        `imei:<imei>,OBD,<yymmddhhmmss>,<odometer>,<fuel now>,<fuel avg>,<hours>,<speed>,<load>%,<coolant>,<throttle>%,<rpm>,<battery>,<dtcs...>;`
 *   alternative `imei:<imei>,<name>,<event>,<sensor>,<voltage>,<hhmmss>,<ddmmyy>,<rssi>,<fix>,<lat>,<lon>,<kmh>,...,*`
 * Frames end with `;`, `*` or a line break.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { knotsToKmh, nmeaDegrees } from './binary.ts';
import {
  DecodeError,
  FrameError,
  type AttrValue,
  type Command,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type EncodeContext,
  type Framer,
} from './types.ts';
import type { Protocol } from './types.ts';

const MAX_FRAME = 4096;
const DELIMITERS = new Set([0x3b /* ; */, 0x2a /* * */, 0x0a, 0x0d]);

/** Frames are cut at `;`, `*`, CR or LF; empty frames (a CRLF after `;`) are skipped. */
function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && DELIMITERS.has(buffer[start])) start++;
      for (let i = start; i < buffer.length; i++) {
        if (DELIMITERS.has(buffer[i])) return { frame: buffer.subarray(start, i), consumed: i + 1 };
        if (i - start >= MAX_FRAME) throw new FrameError('gps103: no delimiter within max frame size');
      }
      if (buffer.length - start > MAX_FRAME) throw new FrameError('gps103: no delimiter within max frame size');
      return null;
    },
  };
}

/** Report keywords that mean an alarm. */
const KEYWORD_ALARMS: Record<string, string> = {
  'help me': Alarm.sos,
  'low battery': Alarm.lowBattery,
  stockade: Alarm.geofence,
  move: Alarm.movement,
  speed: Alarm.overspeed,
  'door alarm': Alarm.door,
  'ac alarm': Alarm.powerCut,
  'accident alarm': Alarm.accident,
  'sensor alarm': Alarm.vibration,
  'bonnet alarm': Alarm.bonnet,
  'footbrake alarm': Alarm.footBrake,
  DTC: Alarm.fault,
};

/** Attributes the keyword itself carries (alarm, ignition, temperature, fuel level, driver id). */
function keywordAttributes(keyword: string, rfid: string): Record<string, AttrValue> {
  const a: Record<string, AttrValue> = {};
  if (keyword) a[Attr.event] = keyword;
  const alarm = KEYWORD_ALARMS[keyword] ?? (keyword.startsWith('T:') ? Alarm.temperature : keyword.startsWith('oil') ? Alarm.fuelLeak : undefined);
  if (alarm) a[Attr.alarm] = alarm;
  if (keyword === 'acc on') a[Attr.ignition] = true;
  if (keyword === 'acc off') a[Attr.ignition] = false;
  const temp = /^T:([-+]?\d+(?:\.\d+)?)$/.exec(keyword);
  if (temp) a[indexed.temp(1)] = Number(temp[1]);
  const oil = /^oil (\d+(?:\.\d+)?)$/.exec(keyword);
  if (oil) a[Attr.fuelLevel] = Number(oil[1]);
  if (keyword === 'rfid' && rfid) a[Attr.driverUniqueId] = rfid;
  return a;
}

const LOCAL_TIME = /^(\d\d)\/?(\d\d)\/?(\d\d) ?(\d\d):?(\d\d)(?:\d\d)?$/;
const UTC_TIME = /^(\d\d)(\d\d)(\d\d)(?:\.\d+)?$/;
const DECIMAL = /^\d+\.\d+$/;
const NUMBER = /^[-+]?\d+(?:\.\d+)?$/;
const num = (s: string | undefined): number | undefined => (s !== undefined && NUMBER.test(s) ? Number(s) : undefined);

/**
 * Fix time: the report carries the local date and hh:mm plus the UTC time of day; the
 * difference between the two hh:mm values is the device's time zone offset.
 */
function fixTime(local: string, utc: string): number {
  const l = LOCAL_TIME.exec(local);
  if (!l) throw new DecodeError('gps103: bad local date');
  const [, yy, mo, dd, lh, lm] = l.map(Number);
  const u = UTC_TIME.exec(utc);
  const base = Date.UTC(2000 + yy, mo - 1, dd, lh, lm, u ? Number(u[3]) : 0);
  if (!u) return base;
  let delta = (lh - Number(u[1])) * 60 + (lm - Number(u[2]));
  if (delta <= -12 * 60) delta += 24 * 60;
  else if (delta > 12 * 60) delta -= 24 * 60;
  return base - delta * 60_000;
}

/** Latitude/longitude with the hemisphere letter before or after the value (both occur). */
function coordinates(f: string[], i: number): { lat: number; lng: number; next: number } {
  let latHem = '';
  if (f[i] === 'N' || f[i] === 'S') latHem = f[i++];
  const lat = f[i++];
  if (f[i] === 'N' || f[i] === 'S') latHem = f[i++];
  let lngHem = '';
  if (f[i] === 'E' || f[i] === 'W') lngHem = f[i++];
  const lng = f[i++];
  if (f[i] === 'E' || f[i] === 'W' || f[i] === '') lngHem = f[i++] || lngHem;
  if (!DECIMAL.test(lat ?? '') || !DECIMAL.test(lng ?? '')) throw new DecodeError('gps103: bad coordinates');
  const la = nmeaDegrees(Number(lat));
  const lo = nmeaDegrees(Number(lng));
  if (la > 90 || lo > 180) throw new DecodeError('gps103: coordinates out of range');
  return { lat: latHem === 'S' ? -la : la, lng: lngHem === 'W' ? -lo : lo, next: i };
}

/** The GNSS part of a regular report, from the `F` field on. */
function decodeFix(f: string[], record: DeviceRecord): void {
  record.time = fixTime(f[2], f[5] ?? '');
  if (f[6] !== 'A' && f[6] !== 'V') throw new DecodeError('gps103: bad validity');
  record.valid = f[6] === 'A';
  const { lat, lng, next } = coordinates(f, 7);
  Object.assign(record, { lat, lng });
  const [speed, course, altitude, ignition, door, fuel1, fuel2, temp] = f.slice(next);
  const knots = num(speed);
  if (knots !== undefined) record.speed = knotsToKmh(knots);
  record.course = num(course) ?? 0;
  const alt = num(altitude);
  if (alt !== undefined) record.altitude = alt;
  const a = record.attributes;
  if (ignition === '0' || ignition === '1') a[Attr.ignition] = ignition === '1';
  if (door === '0' || door === '1') a[Attr.door] = door === '1';
  for (const [key, v] of [[indexed.fuel(1), fuel1], [indexed.fuel(2), fuel2]] as const) {
    const m = /^(\d+\.\d+)%$/.exec(v ?? '');
    if (m) a[key] = Number(m[1]);
  }
  const t = num(temp);
  if (t !== undefined) a[indexed.temp(1)] = t;
}

/** Regular report: a fix (`F`), or cell towers / nothing (`L`). */
function decodeRegular(sentence: string, ctx: DecodeContext): DeviceRecord | undefined {
  const f = sentence.split(',');
  const keyword = f[1] ?? '';
  if (keyword.startsWith('vr')) return undefined; // photo chunk: images are not kept
  const record: DeviceRecord = { attributes: keywordAttributes(keyword, f[3] ?? '') };
  if (f[4] === 'F') {
    decodeFix(f, record);
  } else if (f[4] === 'L' && /^[0-9a-fA-F]+$/.test(f[7] ?? '') && /^[0-9a-fA-F]+$/.test(f[9] ?? '')) {
    const mcc = Number(ctx.config.mcc ?? 0);
    const mnc = Number(ctx.config.mnc ?? 0);
    record.cells = [{ mcc, mnc, lac: parseInt(f[7], 16), cid: parseInt(f[9], 16) }];
  }
  return record;
}

const OBD =
  /^imei:(\d+),OBD,(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),(\d+)?,(\d+\.\d+)?,(\d+\.\d+)?,(\d+)?,(\d+),(\d+\.?\d*)%,([-+]?\d*),(\d+\.?\d*)%,(\d+),(\d+\.\d+),([^;]*)/;

/** OBD report: engine data, no location. A report missing a mandatory value is ignored. */
function decodeObd(sentence: string): DeviceRecord | undefined {
  const m = OBD.exec(sentence);
  if (!m) return undefined;
  const [, , yy, mo, dd, hh, mi, ss, odometer, , fuelAvg, hours, speed, load, coolant, throttle, rpm, battery, dtcs] = m;
  const a: Record<string, AttrValue> = {
    [Attr.obdSpeed]: Number(speed),
    [Attr.engineLoad]: Number(load),
    [Attr.throttle]: Number(throttle),
    [Attr.rpm]: Number(rpm),
    [Attr.battery]: Number(battery),
  };
  if (odometer) a[Attr.odometer] = Number(odometer);
  if (fuelAvg) a[Attr.fuelConsumption] = Number(fuelAvg);
  if (hours) a[Attr.hours] = Number(hours) * 3_600_000;
  if (/\d/.test(coolant)) a[Attr.coolantTemp] = Number(coolant);
  const codes = dtcs.split(',').filter(Boolean).join(' ');
  if (codes) a[Attr.dtcs] = codes;
  return { time: Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss)), attributes: a };
}

const ALT =
  /^imei:(\d+),[^,]*,([^,]*),([^,]*),([^,]*),(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(\d+),(\d),(-?\d+\.\d+),(-?\d+\.\d+),(\d+),(\d+),(-?\d+),(\d+\.\d+),(\d+),([01]),([01]),([^,]*)/;
const dashes = (s: string) => (/^-*$/.test(s) ? undefined : s);

/** Alternative format (decimal degrees, km/h, `*` terminated). */
function decodeAlternative(m: RegExpExecArray): DeviceRecord {
  const [, , event, sensorId, voltage, hh, mi, ss, dd, mo, yy, rssi, fix, lat, lng, speed, course, alt, hdop, sats, ign, charge, error] = m;
  const a: Record<string, AttrValue> = { [Attr.rssi]: Number(rssi), [Attr.ignition]: ign === '1', [Attr.charge]: charge === '1' };
  if (dashes(event)) a[Attr.event] = event;
  if (dashes(sensorId)) a.sensorId = sensorId;
  if (dashes(voltage) && NUMBER.test(voltage)) a.sensorVoltage = Number(voltage);
  if (dashes(error)) a.error = error;
  return {
    time: Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss)),
    valid: Number(fix) > 0,
    lat: Number(lat),
    lng: Number(lng),
    speed: Number(speed),
    course: Number(course),
    altitude: Number(alt),
    hdop: Number(hdop),
    satellites: Number(sats),
    attributes: a,
  };
}

const text = (s: string) => Buffer.from(s, 'latin1');

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  let sentence = frame.toString('latin1').replace(/[;*\r\n]+$/, '');
  // Login: short message naming the IMEI.
  if (sentence.includes('imei:') && sentence.length <= 30) {
    const id = /imei:(\d+)/.exec(sentence)?.[1];
    return { deviceId: id, reply: text('LOAD') };
  }
  let reply: Buffer | undefined;
  if (/^\d/.test(sentence)) {
    // Heartbeat: the bare IMEI, sometimes glued to a report.
    reply = text('ON');
    const at = sentence.indexOf('imei:');
    if (at < 0) return { deviceId: /^\d{6,20}$/.test(sentence) ? sentence : undefined, reply };
    sentence = sentence.slice(at);
  }
  const imei = /^imei:(\d+),/.exec(sentence)?.[1];
  if (!imei) throw new DecodeError('gps103: no imei');
  const alt = ALT.exec(sentence);
  let record: DeviceRecord | undefined;
  if (sentence.startsWith(`imei:${imei},OBD,`)) record = decodeObd(sentence);
  else if (alt) record = decodeAlternative(alt);
  else record = decodeRegular(sentence, ctx);
  // An SOS report is acknowledged so the device stops repeating it.
  if (record?.attributes[Attr.alarm] === Alarm.sos) reply = text(`**,imei:${imei},E;`);
  return { deviceId: imei, records: record ? [record] : [], reply };
}

/** Commands as letter codes after `**,imei:<imei>,`. */
const COMMAND_CODES: Record<string, string> = {
  positionStop: 'A',
  positionSingle: 'B',
  engineStop: 'J',
  engineResume: 'K',
  alarmArm: 'L',
  alarmDisarm: 'M',
  requestPhoto: '160',
};

/** Reporting interval as the device spells it: `30s`, `05m`, `01h`. */
function frequency(seconds: number): string {
  const pad = (n: number) => String(Math.trunc(n)).padStart(2, '0');
  if (seconds >= 3600) return `${pad(seconds / 3600)}h`;
  if (seconds >= 60) return `${pad(seconds / 60)}m`;
  return `${pad(seconds)}s`;
}

function encode(command: Command, ctx: EncodeContext): Buffer {
  const head = `**,imei:${ctx.deviceId},`;
  const attrs = command.attributes;
  switch (command.type) {
    case 'custom':
      return text(head + String(attrs.data ?? ''));
    case 'positionPeriodic':
      return text(`${head}C,${frequency(Number(attrs.frequency ?? 0))}`);
    default: {
      const code = COMMAND_CODES[command.type];
      if (!code) throw new Error(`gps103: unsupported command ${command.type}`);
      return text(head + code);
    }
  }
}

export const protocol: Protocol = {
  name: 'gps103',
  defaultPort: 5001,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: ['custom', 'positionPeriodic', ...Object.keys(COMMAND_CODES)],
  carriesText: false,
  encode,
};
