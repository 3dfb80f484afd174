/**
 * ITS / AIS-140 (Indian vehicle tracking standard) text protocol, as sent by many vendors' devices.
 *
 *   location  `$<header>,<vendor>,<firmware>,<type>,[<alert id>,]<L|H>,<imei>,<vehicle>,<fix>,<ddmmyyyy>,<hhmmss>,
 *              <lat>,<N|S>,<lon>,<E|W>,<km/h>,<course>,<sats>,<alt>,<pdop>,<hdop>,<operator>,<ignition>,<main power>,
 *              <power V>,<battery V>,<emergency>,[<tamper>,]<gsm>,<mcc>,<mnc>,<lac>,<cid>,<neighbour cells...>,
 *              <inputs 4 bits>,<outputs 2 bits>,<frame number>,<vendor extras...>*<checksum>`
 *              (`$,<header>,...` with an empty first field; the date also as `dd,mm,yyyy,hh,mm,ss` or `ddmmyy`)
 *   emergency `$<header>,EMR|SEM,<imei>,<NM|SP>,<ddmmyyyyhhmmss>,<A|V>,<lat>,N,<lon>,E,<altitude>,<km/h>,...`
 *   login `$,LGN,...` (answered `$LGN<ddmmyyyyhhmmss>*`), heartbeat `$,HBT,...` (`$HBT*`), `$,01,...` (`$,1,*`).
 * Packet types: NR normal, EA emergency, TA tamper, BD/BR main power cut/restored, BL low battery,
 * HB/HA/RT harsh braking/acceleration/turn, OS overspeed, IN/IF ignition on/off, ...
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { FrameError, type AttrValue, type Cell, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 2048;
const DOLLAR = 0x24;
const STAR = 0x2a;
const COMMA = 0x2c;

const isAlnum = (b: number) => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);

/**
 * A frame runs from `$` to the next `$`, `*` or line break. A `*<two hex digits>` checksum before a
 * line break stays in the frame; a one-byte binary checksum between the last comma and `*` does not.
 */
function createFramer(): Framer {
  return {
    next(buffer) {
      const start = buffer.indexOf(DOLLAR);
      if (start < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('its: no frame start');
        return null;
      }
      for (let i = start + 1; i < buffer.length; i++) {
        const b = buffer[i];
        if (i - start > MAX_FRAME) throw new FrameError('its: frame too long');
        if (b === DOLLAR || b === 0x0d || b === 0x0a) return { frame: buffer.subarray(start, i), consumed: i };
        if (b !== STAR) continue;
        const lastComma = buffer.lastIndexOf(COMMA, i);
        const field = lastComma > start ? i - lastComma - 1 : -1;
        if (field === 1 && !isAlnum(buffer[i - 1])) return { frame: buffer.subarray(start, i - 1), consumed: i + 1 };
        if (field === 1) {
          // `...,E*5E\r\n`: a checksum after the star, up to the line break
          const tail = buffer.subarray(i + 1, i + 5).toString('latin1');
          const m = /^[0-9A-Fa-f]{2}\r?\n/.exec(tail);
          if (m) return { frame: buffer.subarray(start, i + 3), consumed: i + 1 + m[0].length };
          if (/^[0-9A-Fa-f]{0,2}\r?$/.test(tail)) return null;
        }
        return { frame: buffer.subarray(start, i), consumed: i + 1 };
      }
      return null;
    },
  };
}

const STATUS_ALARMS: Record<string, string> = {
  WD: Alarm.sos,
  EA: Alarm.sos,
  BL: Alarm.lowBattery,
  HB: Alarm.hardBraking,
  HA: Alarm.hardAcceleration,
  RT: Alarm.hardCornering,
  OS: Alarm.overspeed,
  TA: Alarm.tampering,
  BD: Alarm.powerCut,
  BR: Alarm.powerRestored,
};

const DECIMAL = /^-?\d+(?:\.\d+)?$/;
const num = (s: string | undefined) => (s !== undefined && DECIMAL.test(s) ? Number(s) : undefined);
const HEX = /^[0-9A-Fa-f]+$/;

/** `ddmmyyyyhhmmss`, `ddmmyyyy,hhmmss`, `ddmmyy,hhmmss` or `dd,mm,yyyy,hh,mm,ss` at `f[i]`: [time or NaN, next index]. */
function dateTime(f: string[], i: number): [number, number] | undefined {
  let parts: string[];
  let next: number;
  if (/^\d{14}$/.test(f[i] ?? '')) {
    const s = f[i];
    parts = [s.slice(0, 2), s.slice(2, 4), s.slice(4, 8), s.slice(8, 10), s.slice(10, 12), s.slice(12, 14)];
    next = i + 1;
  } else if (/^(\d{6}|\d{8})$/.test(f[i] ?? '') && /^\d{6}$/.test(f[i + 1] ?? '')) {
    const [d, t] = [f[i], f[i + 1]];
    parts = [d.slice(0, 2), d.slice(2, 4), d.slice(4), t.slice(0, 2), t.slice(2, 4), t.slice(4, 6)];
    next = i + 2;
  } else if (f.slice(i, i + 6).every((x, k) => (k === 2 ? /^(\d\d|\d{4})$/ : /^\d\d$/).test(x)) && f.length >= i + 6) {
    parts = f.slice(i, i + 6);
    next = i + 6;
  } else return undefined;
  const [dd, mo, y, hh, mi, ss] = parts.map(Number);
  const year = y < 100 ? 2000 + y : y;
  // all zeros: the device has no time yet
  const time = dd && mo && year ? Date.UTC(year, mo - 1, dd, hh, mi, ss) : NaN;
  return [time, next];
}

function coordinates(f: string[], i: number, rec: DeviceRecord): boolean {
  const [lat, ns, lng, ew] = f.slice(i, i + 4);
  if (!/^\d+\.\d+$/.test(lat ?? '') || !/^\d+\.\d+$/.test(lng ?? '') || !/^[NS]$/.test(ns) || !/^[EW]$/.test(ew)) return false;
  const la = Number(lat);
  const lo = Number(lng);
  if (la > 90 || lo > 180) return false;
  rec.lat = ns === 'S' ? -la : la;
  rec.lng = ew === 'W' ? -lo : lo;
  return true;
}

/** Location packet fields after the IMEI. */
function decodeLocation(f: string[], i: number, rec: DeviceRecord, ctx: DecodeContext): boolean {
  const a = rec.attributes;
  let pos = i + 1; // vehicle registration
  pos++;
  let fix: string | undefined;
  if (/^[01]$/.test(f[pos] ?? '')) fix = f[pos++];
  const dt = dateTime(f, pos);
  if (!dt) return false;
  pos = dt[1];
  if (/^[01AV]$/.test(f[pos] ?? '')) fix = f[pos++];
  if (!coordinates(f, pos, rec)) return false;
  pos += 4;
  rec.valid = (fix === '1' || fix === 'A') && !Number.isNaN(dt[0]);
  rec.time = Number.isNaN(dt[0]) ? ctx.now : dt[0];
  const [speed, course, sats, alt, pdop, hdop, operator, ignition, charge, power, battery, emergency] = f.slice(pos, pos + 12);
  const s = num(speed);
  const c = num(course);
  const n = num(sats);
  if (s === undefined || c === undefined || n === undefined) return true;
  Object.assign(rec, { speed: s, course: c <= 360 ? c : 0, satellites: n });
  if (num(alt) === undefined || num(pdop) === undefined || num(hdop) === undefined || !/^[01]$/.test(ignition ?? '')) return true;
  Object.assign(rec, { altitude: num(alt), hdop: num(hdop) });
  a.pdop = num(pdop)!;
  if (operator) a[Attr.operator] = operator;
  a[Attr.ignition] = ignition === '1';
  if (/^[01]$/.test(charge ?? '')) a[Attr.charge] = charge === '1';
  const p = num(power);
  if (p !== undefined) a[Attr.power] = p;
  const b = num(battery);
  if (b !== undefined) a[Attr.battery] = b;
  if (/^[01]$/.test(emergency ?? '')) a.emergency = emergency === '1';
  pos += 12;
  if (/^[A-Z]?$/.test(f[pos] ?? '1')) pos++; // tamper: C closed, O open, ...
  // inputs and outputs: the last `<4 digits>,<2 bits>` pair with a field after it
  let io = -1;
  for (let k = f.length - 3; k > pos; k--) {
    if (/^[012]{4}$/.test(f[k]) && /^[01]{2}$/.test(f[k + 1])) {
      io = k;
      break;
    }
  }
  const cell = serving(f.slice(pos, io < 0 ? f.length : io));
  if (cell) rec.cells = [cell];
  if (io < 0) return true;
  a[Attr.input] = parseInt(f[io].replace(/2$/, '0'), 2);
  a[Attr.output] = parseInt(f[io + 1], 2);
  extras(f.slice(io + 2), a);
  return true;
}

/** Serving cell: `gsm signal, mcc, mnc, lac hex, cid hex` (neighbour cells follow in vendor-specific orders). */
function serving(c: string[]): Cell | undefined {
  const [rssi, mcc, mnc, lac, cid] = c.map((x) => x.trim());
  if (!/^\d+$/.test(mcc ?? '') || !/^\d+$/.test(mnc ?? '') || !HEX.test(lac ?? '') || !HEX.test(cid ?? '')) return undefined;
  const cell: Cell = { mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16) };
  if (!cell.mcc || !cell.cid || cell.lac > 0xffff || cell.cid > 0xfffffff) return undefined;
  if (/^\d+$/.test(rssi ?? '')) cell.rssi = Number(rssi);
  return cell;
}

/**
 * After the frame number vendors add: odometer (km), adc1, acceleration x/y/z and tilt y/x; or the
 * odometer and a hex checksum; or two analog inputs.
 */
function extras(e: string[], a: Record<string, AttrValue>): void {
  if (!/^\d+$/.test(e[0] ?? '')) return;
  a[Attr.index] = Number(e[0]);
  const v = e.slice(1, 8).map(num);
  if (v.length === 7 && v.every((x) => x !== undefined) && /^-?\d+$/.test(e[6]) && /^-?\d+$/.test(e[7])) {
    a[Attr.odometer] = v[0]! * 1000;
    a[indexed.adc(1)] = v[1]!;
    a.acceleration = `${v[2]},${v[3]},${v[4]}`;
    a.tiltY = v[5]!;
    a.tiltX = v[6]!;
  } else if (v[0] !== undefined && /^[0-9A-Fa-f]+$/.test(e[2] ?? '')) {
    a[Attr.odometer] = v[0] * 1000;
  } else if (v[0] !== undefined && v[1] !== undefined) {
    a[indexed.adc(1)] = v[0];
    a[indexed.adc(2)] = v[1];
  }
}

/** Emergency packet fields after the IMEI: status, time, validity, position, altitude, speed. */
function decodeEmergency(f: string[], i: number, rec: DeviceRecord, ctx: DecodeContext): boolean {
  const dt = dateTime(f, i + 2);
  if (!/^[A-Z]{2}$/.test(f[i + 1] ?? '') || !dt) return false;
  let pos = dt[1];
  const fix = /^[01AV]$/.test(f[pos] ?? '') ? f[pos++] : undefined;
  if (!coordinates(f, pos, rec)) return false;
  rec.valid = (fix === 'A' || fix === '1') && !Number.isNaN(dt[0]);
  rec.time = Number.isNaN(dt[0]) ? ctx.now : dt[0];
  const alt = num(f[pos + 4]);
  const speed = num(f[pos + 5]);
  if (alt !== undefined && speed !== undefined) Object.assign(rec, { altitude: alt, speed });
  return true;
}

const stamp = (now: number) => {
  const d = new Date(now).toISOString(); // yyyy-mm-ddThh:mm:ss
  return `${d.slice(8, 10)}${d.slice(5, 7)}${d.slice(0, 4)}${d.slice(11, 13)}${d.slice(14, 16)}${d.slice(17, 19)}`;
};
const text = (s: string) => Buffer.from(s, 'latin1');

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  let s = frame.toString('latin1');
  const start = s.indexOf('$');
  if (start < 0) return {};
  s = s.slice(start);
  const star = s.indexOf('*');
  const f = (star < 0 ? s : s.slice(0, star)).split(',');
  const imeiAt = f.findIndex((x, k) => k < 9 && /^\d{15}$/.test(x));
  let reply: Buffer | undefined;
  if (s.startsWith('$,01,')) reply = text('$,1,*');
  else if (s.startsWith('$,LGN,')) reply = text(`$LGN${stamp(ctx.now)}*`);
  else if (s.startsWith('$,HBT,')) reply = text('$HBT*');
  if (imeiAt < 0) return { reply };
  const deviceId = f[imeiAt];
  const shifted = f[0] === '$' ? 1 : 0; // `$,<header>,...`
  const rec: DeviceRecord = { attributes: {} };
  const a = rec.attributes;
  let ok = false;
  if (/^[LH]$/.test(f[imeiAt - 1] ?? '')) {
    // <type>,[<alert id>,]<L|H>
    const hasEvent = /^\d+$/.test(f[imeiAt - 2] ?? '');
    const typeAt = imeiAt - (hasEvent ? 3 : 2);
    if (typeAt === 3 + shifted && /^[A-Z]{2}$/.test(f[typeAt])) {
      const type = f[typeAt];
      if (hasEvent) a[Attr.event] = Number(f[imeiAt - 2]);
      if (f[imeiAt - 1] === 'H') a[Attr.archive] = true;
      ok = decodeLocation(f, imeiAt, rec, ctx);
      if (type === 'IN' || type === 'IF') a[Attr.ignition] = type === 'IN';
      else if (STATUS_ALARMS[type]) a[Attr.alarm] = STATUS_ALARMS[type];
      else if (a.emergency === true) a[Attr.alarm] = Alarm.sos;
      a.packetType = type;
    }
  } else if (imeiAt === 2 + shifted && f[imeiAt - 1]) {
    // <header>,<EMR|SEM>,<imei>
    ok = decodeEmergency(f, imeiAt, rec, ctx);
    if (f[imeiAt - 1] === 'EMR') a[Attr.alarm] = Alarm.sos;
  } else if (s.startsWith('$,LGN,')) {
    return { deviceId, reply };
  }
  return ok ? { deviceId, records: [rec], reply } : { reply };
}

// ---- commands ---------------------------------------------------------------------------------

const COMMANDS: Record<string, (c: Command) => string> = {
  engineStop: () => '@SET#RLP,OP1,',
  engineResume: () => '@SET#RLP,OP0,',
  custom: (c) => String(c.attributes.data ?? ''),
};

function encode(command: Command, _ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`its: unsupported command ${command.type}`);
  return text(build(command));
}

export const protocol: Protocol = {
  name: 'its',
  defaultPort: 5179,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  carriesText: false,
  encode,
};
