/**
 * UPRO protocol (UPRO, MG, AI and VK trackers): text frames `*<head>,<type><subtype>...&X<data>&Y<data>#`.
 *
 *   `*` + head (two letters and `20`, e.g. `HQ20`) + ack flag (`1`: the device wants an answer) +
 *   device id + `,` + type and subtype letters (`BA` report, `AB` alarm, `AH` heartbeat, `GY`
 *   transparent data, ...), then `&`-separated fields, each one letter and its data:
 *   A location `hhmmss ddmmmmmm dddmmmmmm <flags> <speed> <course/10> ddmmyy` (flags: bit 0 not valid,
 *   bit 1 north, bit 2 east), B status (10 digits: ignition, alarms), C odometer, F speed, G altitude,
 *   I / X / Y / P GSM cells, J temperature, M battery or humidity, N rssi, O satellites, R rssi and
 *   satellites, T battery %, V power, W alarms, d analog input, l lock state; `GY` carries a binary
 *   block (type, length, data: 0x4009 is a driver's card).
 *
 * Reply: when the ack flag is 1, `*<head>Y<type><subtype>#` (e.g. `*HQ20YBA#`).
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { DecodeError, FrameError, type AttrValue, type Cell, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 2048;
const HASH = 0x23;

/** Frames end with `#` (the `#` is kept); a frame must start with `*`. */
function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && (buffer[start] === 0x0d || buffer[start] === 0x0a)) start++;
      if (start < buffer.length && buffer[start] !== 0x2a) throw new FrameError('upro: frame does not start with *');
      const end = buffer.indexOf(HASH, start);
      if (end < 0) {
        if (buffer.length - start > MAX_FRAME) throw new FrameError('upro: frame too long');
        return null;
      }
      return { frame: buffer.subarray(start, end + 1), consumed: end + 1 };
    },
  };
}

/** A decimal (or hex) number, or undefined for anything else. */
function num(s: string, radix = 10): number | undefined {
  if (!(radix === 16 ? /^[0-9A-Fa-f]+$/ : /^\d+$/).test(s)) return undefined;
  return parseInt(s, radix);
}

const LOCATION = /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d{4})(\d{3})(\d\d)(\d{4})(\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)/;

function location(rec: DeviceRecord, data: string): void {
  const m = LOCATION.exec(data);
  if (!m) return;
  const [, hh, mi, ss, latD, latM, latF, lngD, lngM, lngF, flags, speed, course, dd, mo, yy] = m;
  const f = Number(flags);
  const lat = Number(latD) + (Number(latM) + Number(latF) / 10000) / 60;
  const lng = Number(lngD) + (Number(lngM) + Number(lngF) / 10000) / 60;
  if (lat > 90 || lng > 180) throw new DecodeError('upro: coordinates out of range');
  Object.assign(rec, {
    time: Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss)),
    valid: (f & 1) === 0,
    lat: f & 2 ? lat : -lat,
    lng: f & 4 ? lng : -lng,
    speed: knotsToKmh(Number(speed) * 2),
    course: Math.min(Number(course) * 10, 360),
  });
}

/** B: ten digits, the second one's bit 0 is ignition, the last five carry alarm bits. */
function status(a: Record<string, AttrValue>, data: string): void {
  if (data.length < 10) return;
  const d = (i: number) => data.charCodeAt(i) - 48;
  a[Attr.ignition] = (d(1) & 1) !== 0;
  const alarm = d(5) & 1 ? Alarm.sos : d(5) & 4 ? Alarm.vibration : d(5) & 8 ? Alarm.movement : d(6) & 4 ? Alarm.overspeed : d(8) & 2 ? Alarm.tampering : d(8) & 4 ? Alarm.lowPower : undefined;
  if (alarm) a[Attr.alarm] = alarm;
  a[Attr.status] = data;
}

/** I and Y: `<count><mcc 3><mnc 2>` then per cell lac (4 hex) + cid (4 or 8 hex) + rssi (2). */
function countedCells(data: string, cidLength: number, rssiRadix: number): Cell[] | undefined {
  const count = num(data.slice(0, 1));
  const size = 4 + cidLength + 2;
  if (count === undefined || data.length !== 6 + count * size) return undefined;
  const mcc = num(data.slice(1, 4));
  const mnc = num(data.slice(4, 6));
  const cells: Cell[] = [];
  for (let i = 0; i < count; i++) {
    const at = 6 + i * size;
    const lac = num(data.slice(at, at + 4), 16);
    const cid = num(data.slice(at + 4, at + 4 + cidLength), 16);
    const rssi = num(data.slice(at + 4 + cidLength, at + size), rssiRadix);
    if (mcc === undefined || mnc === undefined || lac === undefined || cid === undefined) return undefined;
    cells.push({ mcc, mnc, lac, cid, ...(rssi !== undefined ? { rssi } : {}) });
  }
  return cells;
}

/** X: `(J<zone>)(k<iccid>)...` parameters, or cells `mcc,mnc,lac,cid,rssi;lac,cid,rssi;...`. */
function xField(rec: DeviceRecord, data: string): void {
  const a = rec.attributes;
  if (data.startsWith('(')) {
    for (const p of data.slice(1, -1).split(')(')) {
      if (p[0] === 'J') a.timezone = p.slice(1);
      else if (p[0] === 'k') a[Attr.iccid] = p.slice(1);
    }
    return;
  }
  const cells: Cell[] = [];
  let mcc: number | undefined;
  let mnc: number | undefined;
  for (const [i, cell] of data.split(';').slice(0, 16).entries()) {
    const v = cell.split(',').map((x) => num(x));
    if (i === 0) [mcc, mnc] = v.splice(0, 2);
    const [lac, cid, rssi] = v;
    if (mcc === undefined || mnc === undefined || lac === undefined || cid === undefined) return;
    cells.push({ mcc, mnc, lac, cid, ...(rssi !== undefined ? { rssi } : {}) });
  }
  rec.cells = cells;
}

function field(rec: DeviceRecord, head: string, key: string, data: string): void {
  const a = rec.attributes;
  const set = (k: string, v: number | undefined) => v !== undefined && Number.isFinite(v) && (a[k] = v);
  const hq = head.startsWith('HQ');
  switch (key) {
    case 'A':
      return location(rec, data);
    case 'B':
      return status(a, data);
    case 'C': {
      // Digits as nibbles (`:`..`?` are 10..15), in units of 2 nautical miles per 3600.
      let v = 0;
      for (let i = 0; i < Math.min(data.length, 12); i++) v = v * 16 + (data.charCodeAt(i) - 48);
      if (v >= 0) a[Attr.odometer] = (v * 2 * 1852) / 3600;
      return;
    }
    case 'F': {
      const v = num(data.slice(0, 4));
      if (v !== undefined) rec.speed = knotsToKmh(v / 10);
      return;
    }
    case 'G': {
      const v = num(data.slice(0, 6));
      if (v !== undefined) rec.altitude = v / 10;
      return;
    }
    case 'I':
    case 'Y': {
      const cells = countedCells(data, key === 'I' ? 4 : 8, key === 'I' ? 10 : 16);
      if (cells) rec.cells = cells;
      else if (key === 'Y') set(Attr.power, (num(data.slice(0, 5)) ?? NaN) / 1000);
      return;
    }
    case 'J': {
      const v = num(data.slice(2, 6));
      if (data.length === 6 && v !== undefined) a[`temp${data[0]}`] = ((data.charCodeAt(1) & 1 ? -1 : 1) * v) / 10;
      return;
    }
    case 'K':
      a.statusExtended = data;
      return;
    case 'M':
      if (data.length === 3) set(Attr.batteryLevel, (num(data) ?? NaN) / 10);
      else if (data.length === 4) set(`humidity${data[0]}`, num(data.slice(2)));
      return;
    case 'N':
      return void set(Attr.rssi, num(data.slice(0, 2)));
    case 'O':
      rec.satellites = num(data.slice(0, 2)) ?? rec.satellites;
      return;
    case 'P':
      if (data.length >= 16) {
        const [mcc, mnc, lac, cid] = [num(data.slice(0, 4)), num(data.slice(4, 8)), num(data.slice(8, 12), 16), num(data.slice(12, 16), 16)];
        if (mcc !== undefined && mnc !== undefined && lac !== undefined && cid !== undefined) rec.cells = [{ mcc, mnc, lac, cid }];
      }
      return;
    case 'Q':
      if (!hq) a.obdPid = Buffer.from(data, 'latin1').toString('hex');
      return;
    case 'R':
      if (hq) {
        set(Attr.rssi, num(data.slice(0, 2)));
        rec.satellites = num(data.slice(2, 4)) ?? rec.satellites;
      } else a.obdTravel = Buffer.from(data, 'latin1').toString('hex');
      return;
    case 'S':
      a.obdTraffic = Buffer.from(data, 'latin1').toString('hex');
      return;
    case 'T':
      if (data.length === 2) set(Attr.batteryLevel, num(data));
      return;
    case 'V':
      return void set(Attr.power, (num(data.slice(0, 4)) ?? NaN) / 10);
    case 'W':
      if ((num(data.slice(0, 2)) ?? 0) & 4) a[Attr.alarm] = Alarm.tampering;
      return;
    case 'X':
      return xField(rec, data);
    case 'b':
      if (data.length > 3) a[Attr.serial] = data.slice(3);
      return;
    case 'd':
      return void set(indexed.adc(1), (num(data) ?? NaN) / 100);
    case 'l':
      if (data.length >= 4) a.logisticsLock = (data.charCodeAt(0) - 48) & 7;
      return;
    default:
  }
}

const HEADER = /^\*(..20)([01])(\d+),([A-Za-z0-9])([A-Za-z0-9])/;

interface Session {
  last?: LastFix;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame[0] !== 0x2a) throw new DecodeError('upro: frame does not start with *');
  const comma = frame.indexOf(0x2c);
  if (comma < 0) return {};
  let bodyAt = comma + 1;
  while (bodyAt < frame.length && /[A-Za-z0-9]/.test(String.fromCharCode(frame[bodyAt]))) bodyAt++;
  const m = HEADER.exec(frame.toString('latin1', 0, bodyAt));
  if (!m) return {};
  const [, head, ack, id, type, subtype] = m;
  const reply = ack === '1' ? Buffer.from(`*${head}Y${type}${subtype}#`, 'latin1') : undefined;
  const rec: DeviceRecord = { attributes: {} };

  if (type === 'G' && subtype === 'Y') {
    if (frame.length < bodyAt + 4) throw new DecodeError('upro: transparent data cut short');
    const dataType = frame.readUInt16BE(bodyAt);
    const length = frame.readUInt16BE(bodyAt + 2);
    if (bodyAt + 4 + length > frame.length) throw new DecodeError('upro: transparent data cut short');
    const data = frame.subarray(bodyAt + 4, bodyAt + 4 + length);
    rec.attributes[dataType === 0x4009 ? Attr.driverUniqueId : 'data'] = dataType === 0x4009 ? data.toString('latin1') : data.toString('hex');
  } else {
    const body = frame.toString('latin1', bodyAt).replace(/#$/, '');
    // `&`-separated fields; the first character of the body is the separator itself.
    for (const part of body.slice(1).split('&')) if (part) field(rec, head, part[0], part.slice(1));
  }

  if (!rec.lat || !rec.lng) {
    delete rec.lat;
    delete rec.lng;
    if (!Object.keys(rec.attributes).length && !rec.cells) return { deviceId: id, reply };
    withLastFix(rec, ctx.session as Session);
  } else rememberFix(ctx.session as Session, rec);
  return { deviceId: id, records: [rec], reply };
}

export const protocol: Protocol = {
  name: 'upro',
  defaultPort: 5095,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  carriesText: false,
};
