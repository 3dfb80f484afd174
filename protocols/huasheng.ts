/**
 * HuaSheng OBD trackers: binary frames between 0xC0 markers, 0xC0/0xDB escaped as DB DC / DB DD.
 * `C0 | flag u8 | reserved u8 | length u16 | type u16 | checksum u16 | index u32 | body | C0`
 *   AA02 login (TLVs, 0x0003 = IMEI)      -> FF03 with result 00
 *   0002 heartbeat                         -> 0003
 *   AA00 position: status, event, `yyMMddHHmmss`, lon/lat 1e-5, km/h, course, altitude, then TLVs
 *        (0x01 OBD, 0x05 rssi/hdop, 0x09 VIN, 0x10 odometer text km, 0x11 engine hours, 0x14 engine
 *        load/throttle, 0x20 cells, 0x21 Wi-Fi)   -> FF01
 *   AA12 fault codes
 * Answers: `C0 01 00 | 12+n | type | 0000 | index | content | C0`. Commands: AA04 settings, AA16 outputs.
 */
import { Alarm, Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { utc, wifiAttribute } from './text.ts';
import {
  DecodeError,
  FrameError,
  type Cell,
  type Command,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type EncodeContext,
  type Framer,
  type Protocol,
} from './types.ts';

const MAX_FRAME = 4096;
const MSG_POSITION = 0xaa00;
const MSG_POSITION_RSP = 0xff01;
const MSG_LOGIN = 0xaa02;
const MSG_LOGIN_RSP = 0xff03;
const MSG_FAULT = 0xaa12;
const MSG_HEARTBEAT = 0x0002;
const MSG_HEARTBEAT_RSP = 0x0003;
const MSG_SET = 0xaa04;
const MSG_CONTROL = 0xaa16;

interface Session {
  last?: LastFix;
}

/** From the first byte to the next 0xC0 (both markers kept), un-escaped. */
function createFramer(): Framer {
  return {
    next(buf) {
      if (buf.length < 2) return null;
      if (buf[0] !== 0xc0) throw new FrameError('huasheng: no start marker');
      const end = buf.indexOf(0xc0, 1);
      if (end < 0) {
        if (buf.length > MAX_FRAME) throw new FrameError('huasheng: no end marker');
        return null;
      }
      const out = Buffer.allocUnsafe(end + 1);
      let n = 0;
      for (let i = 0; i <= end; i++) {
        const b = buf[i];
        if (b === 0xdb && i < end) {
          const ext = buf[++i];
          if (ext === 0xdc) out[n++] = 0xc0;
          else if (ext === 0xdd) out[n++] = 0xdb;
        } else out[n++] = b;
      }
      return { frame: out.subarray(0, n), consumed: end + 1 };
    },
  };
}

function escape(body: Buffer): Buffer {
  const out: number[] = [];
  for (const b of body) {
    if (b === 0xc0) out.push(0xdb, 0xdc);
    else if (b === 0xdb) out.push(0xdb, 0xdd);
    else out.push(b);
  }
  return Buffer.from(out);
}

function packet(flag: number, type: number, index: number, content: Buffer): Buffer {
  const body = Buffer.alloc(12 + content.length);
  body.writeUInt16BE(flag, 0);
  body.writeUInt16BE(12 + content.length, 2);
  body.writeUInt16BE(type, 4);
  body.writeUInt16BE(0, 6);
  body.writeUInt32BE(index >>> 0, 8);
  content.copy(body, 12);
  return Buffer.concat([Buffer.from([0xc0]), escape(body), Buffer.from([0xc0])]);
}
const answer = (type: number, index: number, content = Buffer.alloc(0)) => packet(0x0100, type, index, content);

const ALARMS: Record<number, string> = { 4: Alarm.fatigueDriving, 6: Alarm.sos, 7: Alarm.hardBraking, 8: Alarm.hardAcceleration, 9: Alarm.hardCornering, 10: Alarm.accident, 16: Alarm.removing };

/** One TLV of a position: `r` is limited to its value. */
function tlv(type: number, r: Reader, rec: DeviceRecord, cells: Cell[], wifi: Array<{ mac: string; rssi: number }>): void {
  const a = rec.attributes;
  const text = () => r.ascii(r.remaining);
  switch (type) {
    case 0x0001: {
      // all-ones values mean "not available"
      const coolant = r.u8();
      if (coolant !== 0xff) a[Attr.coolantTemp] = coolant - 40;
      const rpm = r.u16();
      if (rpm !== 0xffff) a[Attr.rpm] = rpm;
      a.averageSpeed = r.u8();
      r.u16(); // fuel used in the interval
      a[Attr.fuelConsumption] = r.u16() / 100;
      a.tripOdometer = r.u16();
      a[Attr.power] = r.u16() / 100;
      const fuel = r.u8();
      if (fuel !== 0xff) a[Attr.fuel] = fuel * 0.4;
      if (r.remaining >= 7) a.fuelLevel2 = r.u16();
      r.u32(); // trip id
      if (r.remaining > 0) a.adBlueLevel = r.u8() * 0.4;
      break;
    }
    case 0x0005:
      a[Attr.rssi] = r.u8();
      rec.hdop = r.u8();
      break;
    case 0x0009:
      a[Attr.vin] = text();
      break;
    case 0x0010: {
      const km = Number(text());
      if (Number.isFinite(km)) a[Attr.odometer] = km * 1000;
      break;
    }
    case 0x0011:
      a[Attr.hours] = r.u32() / 20; // as the captures give it (units of the device's counter)
      break;
    case 0x0014:
      r.u8(); // valid flags
      a[Attr.engineLoad] = r.u8() / 255;
      a.timingAdvance = r.u8() * 0.5;
      a.airTemp = r.u8() - 40;
      a.airFlow = r.u16() / 100;
      a[Attr.throttle] = r.u8() / 255;
      break;
    case 0x0020:
      for (const cell of text().split('+').slice(0, 16)) {
        const [mcc, mnc, lac, cid] = cell.split('@');
        if (/^\d+$/.test(mcc ?? '') && /^\d+$/.test(mnc ?? '') && /^[0-9a-fA-F]{1,8}$/.test(lac ?? '') && /^[0-9a-fA-F]{1,10}$/.test(cid ?? '')) {
          cells.push({ mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16) });
        }
      }
      break;
    case 0x0021:
      for (const point of text().split('+').slice(0, 32)) {
        const [mac, rssi] = point.split('@');
        if (mac && /^-?\d+$/.test(rssi ?? '')) wifi.push({ mac, rssi: Number(rssi) });
      }
      break;
    default:
  }
}

function decodePosition(r: Reader, index: number, session: Session): DecodeResult {
  const status = r.u16();
  const event = r.u16();
  const t = r.ascii(12);
  if (!/^\d{12}$/.test(t)) throw new DecodeError('huasheng: bad time');
  const p = (i: number) => Number(t.slice(i, i + 2));
  // a device without a clock sends 1970-01-01 as `197001011402`: no time then
  const time = p(2) >= 1 && p(2) <= 12 ? utc(p(0), p(2), p(4), p(6), p(8), p(10)) : undefined;
  const rec: DeviceRecord = {
    time,
    valid: (status & 0x8000) !== 0 && time !== undefined,
    attributes: { [Attr.status]: status, [Attr.ignition]: (status & 0x4000) !== 0, [Attr.event]: event },
  };
  rec.lng = r.i32() / 1e5;
  rec.lat = r.i32() / 1e5;
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('huasheng: coordinates out of range');
  rec.speed = r.u16();
  rec.course = r.u16();
  rec.altitude = r.u16();
  r.u16(); // speed from the odometer
  if (ALARMS[event]) rec.attributes[Attr.alarm] = ALARMS[event];
  const cells: Cell[] = [];
  const wifi: Array<{ mac: string; rssi: number }> = [];
  while (r.remaining >= 4) {
    const type = r.u16();
    const length = r.u16() - 4;
    if (length < 0 || length > r.remaining) throw new DecodeError('huasheng: bad TLV length');
    tlv(type, new Reader(r.buf, r.pos, r.pos + length), rec, cells, wifi);
    r.skip(length);
  }
  if (cells.length) rec.cells = cells;
  if (wifi.length) rec.attributes.wifi = wifiAttribute(wifi);
  rememberFix(session, rec);
  return { records: [rec], reply: answer(MSG_POSITION_RSP, index) };
}

/** Fault codes: two bytes each; the first nibble's high bits pick the letter. */
function decodeFaults(r: Reader, session: Session): DecodeResult {
  r.u16(); // type
  r.u16(); // length
  const codes: string[] = [];
  while (r.remaining >= 2 && codes.length < 256) {
    const v = r.hex(2);
    const digit = parseInt(v[0], 16);
    codes.push(`${'PCBU'[digit >> 2]}${digit % 4}${v.slice(1)}`);
  }
  return { records: [withLastFix({ attributes: { [Attr.dtcs]: codes.join(' ') } }, session)] };
}

function decodeLogin(r: Reader, index: number): DecodeResult {
  let deviceId: string | undefined;
  while (r.remaining >= 4) {
    const type = r.u16();
    const length = r.u16() - 4;
    if (length < 0 || length > r.remaining) throw new DecodeError('huasheng: bad TLV length');
    if (type === 0x0003) deviceId = r.ascii(length).replace(/\0+$/, '');
    else r.skip(length);
  }
  if (!deviceId) return {};
  return { deviceId, reply: answer(MSG_LOGIN_RSP, index, Buffer.from([0])) };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length < 14 || frame[0] !== 0xc0 || frame[frame.length - 1] !== 0xc0) throw new DecodeError('huasheng: bad frame');
  const r = new Reader(frame, 1, frame.length - 1);
  r.u8(); // flag
  r.u8(); // reserved
  r.u16(); // length
  const type = r.u16();
  r.u16(); // checksum (not filled in by the devices)
  const index = r.u32();
  switch (type) {
    case MSG_LOGIN:
      return decodeLogin(r, index);
    case MSG_HEARTBEAT:
      return { reply: answer(MSG_HEARTBEAT_RSP, index) };
    case MSG_FAULT:
      return decodeFaults(r, ctx.session as Session);
    case MSG_POSITION:
      return decodePosition(r, index, ctx.session as Session);
    default:
      return {};
  }
}

const u16 = (...values: number[]) => {
  const b = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => b.writeUInt16BE(v & 0xffff, i * 2));
  return b;
};

const COMMANDS: Record<string, (a: Command['attributes']) => Buffer> = {
  positionPeriodic: (a) => packet(0, MSG_SET, 1, u16(0x0002, 6, Number(a.frequency ?? 0))),
  // output n on = 2(n-1), off = 2(n-1)+1
  outputControl: (a) => packet(0, MSG_CONTROL, 1, Buffer.from([((Number(a.index ?? 1) - 1) * 2 + (2 - Number(a.data ?? 0))) & 0xff])),
  alarmArm: () => packet(0, MSG_SET, 1, Buffer.concat([u16(0x0001, 5), Buffer.from([1])])),
  alarmDisarm: () => packet(0, MSG_SET, 1, Buffer.concat([u16(0x0001, 5), Buffer.from([0])])),
  setSpeedLimit: (a) => packet(0, MSG_SET, 1, u16(0x0004, 6, Number(a.data ?? 0))),
};

function encode(command: Command, _ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`huasheng: unsupported command ${command.type}`);
  return build(command.attributes);
}

export const protocol: Protocol = {
  name: 'huasheng',
  defaultPort: 5111,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  encode,
};
