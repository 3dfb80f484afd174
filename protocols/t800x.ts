/**
 * T800x protocol (T800x trackers, TLW and TLP lines): binary frames over TCP or UDP.
 *
 *   header (2: 0x2323 trackers, 0x2525 newer trackers, 0x2626 OBD models, 0x2727 solar/asset
 *   models) + type (1) + length of the whole frame (2) + serial (2) + IMEI (8 bytes BCD, a leading 0)
 *   + body. Types: 0x01 login, 0x02 GPS, 0x03 heartbeat, 0x04 alarm, 0x05 network (0x2727) or
 *   driver behaviour (0x2626), 0x06 driver behaviour, 0x10 BLE tags, 0x11 network, 0x13 GPS and 0x14
 *   alarm with more IO, 0x81 command reply.
 *   A position body: intervals and signal, status (bit 6: GNSS fixed, bits 0-4 satellites), IO,
 *   analog inputs (/100 V), alarm code, odometer, battery %; then either the fix (BCD yymmddhhmmss,
 *   altitude, longitude, latitude as little-endian floats, BCD speed in 0.1 km/h, course) or the
 *   time and three GSM cells; then battery and external power (BCD, 0.01 V) and OBD values.
 *
 * Replies (the server answer the device waits for before sending the next message): login,
 * heartbeat, network, driver behaviour, BLE and command replies are answered with
 * `header, type, 0x000F, serial, IMEI`, alarms (0x04, 0x14) with the same plus the alarm code
 * (length 0x0010; an alarm code 0 is not appended); plain GPS reports only when the decoder config sets `ack`. The 0x2323 header
 * answers with serial 1, the others echo the frame's serial.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { withLastFix, type LastFix } from './last-fix.ts';
import { DecodeError, FrameError, type AttrValue, type Cell, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const HEADER_MIN = 15;
const T2323 = 0x2323;
const T2626 = 0x2626;
const T2727 = 0x2727;
const HEADERS = new Set([T2323, 0x2525, T2626, T2727]);
const MSG = { login: 0x01, gps: 0x02, heartbeat: 0x03, alarm: 0x04, network: 0x05, behaviour1: 0x05, behaviour2: 0x06, ble: 0x10, network2: 0x11, gps2: 0x13, alarm2: 0x14, command: 0x81 } as const;
const POSITION_TYPES = new Set<number>([MSG.gps, MSG.gps2, MSG.alarm, MSG.alarm2]);

/** The length field (offset 3) counts the whole frame. */
function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 5) return null;
      if (!HEADERS.has(buffer.readUInt16BE(0))) throw new FrameError('t800x: unknown header');
      const length = buffer.readUInt16BE(3);
      if (length < HEADER_MIN || length > MAX_FRAME) throw new FrameError(`t800x: bad length ${length}`);
      return buffer.length >= length ? { frame: buffer.subarray(0, length), consumed: length } : null;
    },
  };
}

const ALARMS_1: Record<number, string> = {
  1: Alarm.powerCut,
  2: Alarm.lowBattery,
  3: Alarm.sos,
  4: Alarm.overspeed,
  5: Alarm.geofenceEnter,
  6: Alarm.geofenceExit,
  7: Alarm.tow,
  8: Alarm.vibration,
  10: Alarm.vibration,
  21: Alarm.jamming,
  23: Alarm.powerRestored,
  24: Alarm.lowPower,
};
/** The 0x2727 (asset) models number their alarms differently. */
const ALARMS_2: Record<number, string> = { 1: Alarm.removing, 4: Alarm.removing, 2: Alarm.tampering, 3: Alarm.sos, 5: Alarm.fallDown, 6: Alarm.lowBattery, 14: Alarm.geofenceEnter, 15: Alarm.geofenceExit };

/** Unsigned BCD of `n` bytes; nibbles above 9 are taken at their value (ranges are checked where they matter). */
function bcd(r: Reader, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) {
    const b = r.u8();
    v = (v * 10 + (b >> 4)) * 10 + (b & 0x0f);
  }
  return v;
}

const readTime = (r: Reader) => {
  const [yy, mo, dd, hh, mi, ss] = [bcd(r, 1), bcd(r, 1), bcd(r, 1), bcd(r, 1), bcd(r, 1), bcd(r, 1)];
  return Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss);
};

function coordinates(r: Reader, rec: DeviceRecord): void {
  rec.altitude = r.f32le();
  rec.lng = r.f32le();
  rec.lat = r.f32le();
  if (!(Math.abs(rec.lat) <= 90 && Math.abs(rec.lng) <= 180) || !Number.isFinite(rec.altitude)) throw new DecodeError('t800x: coordinates out of range');
}

interface Frame {
  header: number;
  type: number;
  index: number;
  imei: Buffer;
}
interface Session {
  last?: LastFix;
}

/** The answer: header, type, length, serial (1 for 0x2323), IMEI, and the alarm code when there is one (not 0). */
export function response(f: Frame, alarm = 0): Buffer {
  const out = Buffer.alloc(alarm > 0 ? 16 : 15);
  out.writeUInt16BE(f.header, 0);
  out[2] = f.type;
  out.writeUInt16BE(out.length, 3);
  out.writeUInt16BE(f.header === T2323 ? 1 : f.index, 5);
  f.imei.copy(out, 7);
  if (alarm > 0) out[15] = alarm;
  return out;
}

/** 40 bits of acceleration: three signed axes in g with one decimal, as `[x,y,z]`. */
function gSensor(b: Buffer): string {
  const v = b.readUIntBE(0, 5);
  const bits = (from: number, to: number) => Math.floor(v / 2 ** from) % 2 ** (to - from);
  const axis = (whole: number, tenth: number, sign: number) => (bits(sign, sign + 1) ? 1 : -1) * (whole + tenth / 10);
  return `[${axis(bits(28, 32), bits(32, 39), 39)},${axis(bits(20, 27), bits(16, 20), 27)},${axis(bits(8, 15), bits(4, 8), 15)}]`;
}

function decodePosition(r: Reader, f: Frame, ctx: DecodeContext): { rec: DeviceRecord; alarm: number } {
  const { header, type } = f;
  const rec: DeviceRecord = { attributes: { [Attr.index]: f.index } };
  const a = rec.attributes;
  const more = type === MSG.gps2 || type === MSG.alarm2;
  if (header !== T2727) {
    r.skip(2 + 2 + 1 + 2); // ignition on/off intervals, angle and distance compensation
    a[Attr.rssi] = r.u16() & 0x7f;
  }
  const status = r.u8();
  rec.satellites = status & 0x1f;
  if (header !== T2727) {
    r.skip(1 + 1 + 1 + 1 + 2); // g-sensor state, flags, heartbeat, relay, drag alarm setting
    const io = r.u16();
    Object.assign(a, { [Attr.ignition]: (io & 0x4000) !== 0, ac: (io & 0x2000) !== 0, [indexed.in(3)]: (io & 0x1000) !== 0, [indexed.in(4)]: (io & 0x800) !== 0 });
    if (more) {
      a[Attr.output] = r.u8();
      r.skip(1);
    } else Object.assign(a, { [indexed.out(1)]: (io & 0x80) !== 0, [indexed.out(2)]: (io & 0x100) !== 0, [indexed.out(3)]: (io & 0x200) !== 0 });
    if (header !== T2626) {
      for (let i = 1; i <= (more ? 5 : 2); i++) {
        const v = r.u16();
        if (v !== 0xffff) a[indexed.adc(i)] = v / 100;
      }
    }
  }
  const alarm = r.u8();
  const name = (header === T2727 ? ALARMS_2 : ALARMS_1)[alarm];
  if (name) a[Attr.alarm] = name;
  a.alarmCode = alarm;
  if (header !== T2727) {
    r.skip(1);
    a[Attr.odometer] = r.u32();
    a[Attr.batteryLevel] = bcd(r, 1) || 100;
  }
  if (status & 0x40) {
    rec.valid = true;
    rec.time = readTime(r);
    coordinates(r, rec);
    if (header === T2626) r.skip(2);
    else rec.speed = bcd(r, 2) / 10;
    rec.course = r.u16();
    if (rec.course > 360) throw new DecodeError('t800x: course out of range');
  } else {
    rec.time = readTime(r);
    withLastFix(rec, ctx.session as Session);
    const mcc = r.u16le();
    const mnc = r.u16le();
    if (mcc !== 0xffff && mnc !== 0xffff) {
      const cells: Cell[] = [];
      for (let i = 0; i < 3; i++) cells.push({ mcc, mnc, lac: r.u16le(), cid: r.u16le() });
      rec.cells = cells;
    }
  }
  if (header === T2727) assetTail(r, a);
  else trackerTail(r, rec, more || ctx.config.model === 'TLW2-2BL' || ctx.config.modelOverride === 'TLW2-2BL');
  return { rec, alarm };
}

function assetTail(r: Reader, a: Record<string, AttrValue>): void {
  a.gSensor = gSensor(r.bytes(5));
  a[Attr.batteryLevel] = bcd(r, 1) || 100;
  a[Attr.deviceTemp] = r.i8();
  a.lightSensor = bcd(r, 1) / 10;
  a[Attr.battery] = bcd(r, 1) / 10;
  a.solarPanel = bcd(r, 1) / 10;
  a[Attr.odometer] = r.u32();
  const input = r.u16();
  Object.assign(a, { [Attr.ignition]: (input & 4) !== 0, [Attr.rssi]: (input >> 4) & 0x7f, [Attr.input]: input });
}

/** Battery and power (BCD 0.01 V), then OBD values where the frame carries them. */
function trackerTail(r: Reader, rec: DeviceRecord, battery: boolean): void {
  const a = rec.attributes;
  if (battery) a[Attr.battery] = bcd(r, 2) / 100;
  if (r.remaining >= 2) a[Attr.power] = bcd(r, 2) / 100;
  if (r.remaining < 19) return;
  rec.speed = bcd(r, 2) / 10;
  a[Attr.obdSpeed] = bcd(r, 2) / 100;
  a[Attr.fuelUsed] = r.u32() / 1000;
  a[Attr.fuelConsumption] = r.u32() / 1000;
  a[Attr.rpm] = r.u16();
  // One byte each, 0xFF = not available; older frames stop early.
  const obd: Array<[string, number]> = [['airInput', 0], ['airPressure', 0], [Attr.coolantTemp, -40], ['airTemp', -40], [Attr.engineLoad, 0], [Attr.throttle, 0], [Attr.fuel, 0]];
  for (const [key, offset] of obd) {
    if (!r.remaining) break;
    const v = r.u8();
    if (v !== 0xff) a[key] = v + offset;
  }
}

function decodeNetwork(r: Reader, ctx: DecodeContext): DeviceRecord {
  const rec = withLastFix({ time: readTime(r), attributes: {} }, ctx.session as Session);
  const a = rec.attributes;
  const field = (enc: BufferEncoding) => {
    const n = r.u8();
    return r.bytes(n).toString(enc);
  };
  a[Attr.operator] = field('utf16le');
  a.networkTechnology = field('latin1');
  a.networkBand = field('latin1');
  field('latin1'); // IMSI
  a[Attr.iccid] = field('latin1');
  return rec;
}

function decodeBehaviour1(r: Reader, ctx: DecodeContext): DeviceRecord[] {
  const kind = r.u8();
  const records: DeviceRecord[] = [];
  while (r.remaining >= 24) {
    const rec: DeviceRecord = { attributes: {} };
    const time = readTime(r);
    if (r.buf.readInt32BE(r.pos) !== -1) {
      rec.valid = true;
      rec.time = time;
      coordinates(r, rec);
    } else {
      r.skip(12);
      rec.time = time;
      withLastFix(rec, ctx.session as Session);
      // Without any known location the event still counts (speed, rpm): placed at 0,0 and not valid,
      // so the telemetry filter keeps it off tracks.
      if (rec.lat === undefined) Object.assign(rec, { lat: 0, lng: 0, valid: false });
    }
    rec.speed = bcd(r, 2) / 10;
    const course = r.u16();
    if (course !== 0xffff) rec.course = Math.min(course / 10, 360);
    const rpm = r.u16();
    if (rpm !== 0xffff) rec.attributes[Attr.rpm] = rpm;
    records.push(rec);
  }
  const last = records.at(-1);
  if (last && kind <= 5) last.attributes[Attr.alarm] = kind % 2 ? Alarm.hardAcceleration : Alarm.hardBraking;
  return records;
}

function decodeBehaviour2(r: Reader): DeviceRecord {
  const kind = r.u8();
  const rec: DeviceRecord = { attributes: {} };
  const alarm = [Alarm.hardBraking, Alarm.hardAcceleration, Alarm.hardCornering][kind];
  if (alarm) rec.attributes[Attr.alarm] = alarm;
  rec.time = readTime(r);
  rec.valid = (r.u8() & 0x80) === 0;
  r.skip(5); // acceleration
  coordinates(r, rec);
  rec.speed = bcd(r, 2) / 10;
  rec.course = Math.min(r.u16() / 10, 360);
  rec.attributes[Attr.rpm] = r.u16();
  return rec;
}

const bleTemp = (v: number) => ((v & 0x8000 ? -1 : 1) * (v & 0x7fff)) / 100;

/** BLE tags: a kind (2 bytes) and its fields each; the tags are numbered from 1. */
function decodeBle(r: Reader, ctx: DecodeContext): DeviceRecord {
  const rec = withLastFix({ time: readTime(r), attributes: {} }, ctx.session as Session);
  const a = rec.attributes;
  a[Attr.ignition] = r.u8() > 0;
  for (let i = 1; r.remaining; i++) {
    const tag = (k: string) => `tag${i}${k}`;
    switch (r.u16()) {
      case 1:
        Object.assign(a, { [tag('Id')]: r.hex(6), [tag('Battery')]: r.u8() / 100 + 1.22, [tag('TirePressure')]: r.u8() * 1.527 * 2, [tag('TireTemp')]: r.u8() - 55, [tag('TireStatus')]: r.u8() });
        break;
      case 2: {
        Object.assign(a, { [tag('Id')]: r.hex(6), [tag('Battery')]: bcd(r, 1) / 10 });
        const s = r.u8();
        if (s === 0) a[Attr.alarm] = Alarm.sos;
        else if (s === 1) a[Attr.alarm] = Alarm.lowBattery;
        r.skip(1 + 16);
        break;
      }
      case 3:
        Object.assign(a, { [Attr.driverUniqueId]: r.hex(6), [tag('Battery')]: bcd(r, 1) / 10 });
        if (r.u8() === 1) a[Attr.alarm] = Alarm.lowBattery;
        r.skip(1 + 16);
        break;
      case 4:
        Object.assign(a, { [tag('Id')]: r.hex(6), [tag('Battery')]: r.u8() / 100 + 2 });
        r.skip(1);
        Object.assign(a, { [tag('Temp')]: bleTemp(r.u16()), [tag('Humidity')]: r.u16() / 100, [tag('LightSensor')]: r.u16(), [tag('Rssi')]: r.u8() - 128 });
        break;
      case 5:
        Object.assign(a, { [tag('Id')]: r.hex(6), [tag('Battery')]: r.u8() / 100 + 2 });
        r.skip(1);
        Object.assign(a, { [tag('Temp')]: bleTemp(r.u16()), [tag('Door')]: r.u8() > 0, [tag('Rssi')]: r.u8() - 128 });
        break;
      case 6:
        Object.assign(a, { [tag('Id')]: r.hex(6), [tag('Battery')]: r.u8() / 100 + 2, [tag('Output')]: r.u8() > 0, [tag('Rssi')]: r.u8() - 128 });
        break;
      default:
        break;
    }
  }
  return rec;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  const header = r.u16();
  if (!HEADERS.has(header)) throw new DecodeError('t800x: unknown header');
  const type = r.u8();
  r.skip(2);
  const f: Frame = { header, type, index: r.u16(), imei: r.bytes(8) };
  const deviceId = f.imei.toString('hex').slice(1);
  if (POSITION_TYPES.has(type)) {
    const { rec, alarm } = decodePosition(r, f, ctx);
    if (rec.valid) (ctx.session as Session).last = { time: rec.time, lat: rec.lat!, lng: rec.lng!, altitude: rec.altitude, speed: rec.speed, course: rec.course };
    const alarmType = type === MSG.alarm || type === MSG.alarm2;
    const reply = alarmType || ctx.config.ack === true ? response(f, alarm) : undefined;
    return { deviceId, records: [rec], reply };
  }
  const reply = response(f);
  let records: DeviceRecord[] = [];
  if ((type === MSG.network && header === T2727) || type === MSG.network2) records = [decodeNetwork(r, ctx)];
  else if (type === MSG.behaviour1 && header === T2626) records = decodeBehaviour1(r, ctx);
  else if (type === MSG.behaviour2 && header === T2626) records = [decodeBehaviour2(r)];
  else if (type === MSG.ble) records = [decodeBle(r, ctx)];
  else if (type === MSG.command) {
    r.skip(1); // protocol number
    records = [withLastFix({ attributes: { [Attr.result]: r.bytes(r.remaining).toString('utf16le') } }, ctx.session as Session)];
  }
  return { deviceId, records, reply };
}

/** `header, 0x81, length, serial 1, IMEI, mode 1 (setting), text`; the header from the config (`header`), default 0x2323. */
function encode(command: Command, ctx: EncodeContext): Buffer {
  if (command.type !== 'custom') throw new Error(`t800x: unsupported command ${command.type}`);
  const content = Buffer.from(String(command.attributes.data ?? ''), 'latin1');
  const imei = `0${ctx.deviceId}`.padStart(16, '0').slice(-16);
  if (!/^\d{16}$/.test(imei)) throw new Error('t800x: the device id must be an IMEI');
  const head = Buffer.alloc(16);
  head.writeUInt16BE(Number(ctx.config.header ?? T2323), 0);
  head[2] = MSG.command;
  head.writeUInt16BE(16 + content.length, 3);
  head.writeUInt16BE(1, 5);
  Buffer.from(imei, 'hex').copy(head, 7);
  head[15] = 0x01;
  return Buffer.concat([head, content]);
}

export const protocol: Protocol = {
  name: 't800x',
  defaultPort: 5094,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: ['custom'],
  carriesText: false,
  encode,
};
