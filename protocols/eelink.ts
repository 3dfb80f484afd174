/**
 * Eelink trackers, protocol 1.x and 2.0.
 *
 * Packet: `0x67 0x67 | u8 type | u16 length (of what follows) | u16 index | content`, big-endian.
 * Over UDP one datagram is `EL | u16 length | u16 checksum | IMEI (8 bytes BCD) | packets...`; the
 * checksum rotates a 16-bit sum left by one bit before adding each byte of IMEI and packets.
 *
 *   0x01 login: IMEI (BCD, leading 0), language, time zone; 2.0 adds firmware versions
 *   0x02 GPS, 0x04 alarm, 0x05 state (1.x): u32 time, lat/lng (s32, 1/1 800 000 degree), u8 km/h,
 *        u16 course, cell (mcc, mnc, lac u16, cid u24), u8 flags (bit 0 fixed); then per type:
 *        GPS status, battery (mV), signal, two analog inputs; alarm type; state event, time, status
 *   0x03 heartbeat: u16 status
 *   0x07 OBD: u32 time, then (u8 PID, 4 bytes raw value left-aligned) items; or a 4-byte status
 *   0x12 location, 0x14 warning (2.0): u32 time, u8 mask, then by mask bit: 0 GPS (lat, lng, s16
 *        altitude, u16 speed, u16 course, u8 satellites), 1 main cell (mcc, mnc, lac, u32 cid, rxlev),
 *        2 and 3 neighbour cells (lac, cid, rxlev), 4 Wi-Fi access point (MAC, rssi); then status,
 *        battery (mV), two analog inputs, mileage (m), counters and sensors (location), or the
 *        warning type and status (warning)
 *   0x80 reply to a server instruction: u8 1, u32 server flag, text
 * Status bits: 0 GPS fixed, 1 ignition line wired, 2 ignition.
 * Every packet but 1.x GPS and instruction replies is acknowledged with its type and index.
 */
import { Alarm, Attr } from './attributes.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { Reader } from './binary.ts';
import {
  DecodeError,
  FrameError,
  type AttrValue,
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
const HEADER = 0x6767;
const EL = 0x454c;

const MSG = {
  login: 0x01,
  gps: 0x02,
  heartbeat: 0x03,
  alarm: 0x04,
  state: 0x05,
  obd: 0x07,
  location: 0x12,
  warning: 0x14,
  instruction: 0x80,
} as const;

type Attrs = Record<string, AttrValue>;

// ---- framing and checksum -----------------------------------------------------------------------

/** `gg` packets by their length; `EL` datagrams (also seen over TCP) by theirs. */
function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 5) return null;
      const marker = buffer.readUInt16BE(0);
      if (marker !== HEADER && marker !== EL) throw new FrameError('eelink: no packet header');
      const size = marker === HEADER ? 5 + buffer.readUInt16BE(3) : 4 + buffer.readUInt16BE(2);
      if (size > MAX_FRAME || size < 7) throw new FrameError(`eelink: bad length ${size}`);
      return buffer.length >= size ? { frame: buffer.subarray(0, size), consumed: size } : null;
    },
  };
}

/** The `EL` checksum: rotate left by one bit, add the byte, keep 16 bits. */
export function elChecksum(buf: Buffer, start = 0, end = buf.length): number {
  let sum = 0;
  for (let i = start; i < end; i++) sum = ((((sum << 1) | (sum >>> 15)) & 0xffff) + buf[i]) & 0xffff;
  return sum;
}

function packet(type: number, index: number, content: Buffer = Buffer.alloc(0)): Buffer {
  const out = Buffer.alloc(7 + content.length);
  out.writeUInt16BE(HEADER, 0);
  out[2] = type;
  out.writeUInt16BE(2 + content.length, 3);
  out.writeUInt16BE(index, 5);
  content.copy(out, 7);
  return out;
}

/** Wrap packets in an `EL` datagram for the device `imei`. */
function datagram(imei: string, packets: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(`0${imei}`.slice(-16).padStart(16, '0'), 'hex'), packets]);
  const out = Buffer.alloc(6 + body.length);
  out.writeUInt16BE(EL, 0);
  out.writeUInt16BE(2 + body.length, 2);
  out.writeUInt16BE(elChecksum(body), 4);
  body.copy(out, 6);
  return out;
}

// ---- shared values ------------------------------------------------------------------------------

const ALARMS: Record<number, string> = {
  0x01: Alarm.powerCut,
  0x02: Alarm.sos,
  0x03: Alarm.lowBattery,
  0x04: Alarm.vibration,
  0x08: Alarm.gpsAntennaCut,
  0x25: Alarm.removing,
  0x82: Alarm.overspeed,
  0x83: Alarm.geofenceEnter,
  0x84: Alarm.geofenceExit,
  0x85: Alarm.accident,
  0x86: Alarm.fallDown,
};

function status(value: number, a: Attrs): void {
  a[Attr.status] = value;
  if (value & 0x02) a[Attr.ignition] = (value & 0x04) !== 0;
}

const coordinate = (r: Reader) => r.i32() / 1800000;

function checkRange(rec: DeviceRecord): DeviceRecord {
  if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('eelink: coordinates out of range');
  return rec;
}

// ---- protocol 1.x -------------------------------------------------------------------------------

/** The position part of GPS, alarm and state packets. */
function readOld(r: Reader): DeviceRecord {
  const time = r.u32() * 1000;
  const lat = coordinate(r);
  const lng = coordinate(r);
  const speed = r.u8();
  const course = r.u16() % 360;
  const cell: Cell = { mcc: r.u16(), mnc: r.u16(), lac: r.u16(), cid: r.u24() };
  const valid = (r.u8() & 0x01) !== 0;
  return checkRange({ time, valid, lat, lng, speed, course, cells: [cell], attributes: {} });
}

function decodeOld(type: number, r: Reader): DeviceRecord {
  const rec = readOld(r);
  const a = rec.attributes;
  if (type === MSG.gps && r.remaining >= 10) {
    status(r.u16(), a);
    Object.assign(a, { [Attr.battery]: r.u16() / 1000, [Attr.rssi]: r.u16(), adc1: r.u16() / 1000, adc2: r.u16() / 1000 });
  } else if (type === MSG.alarm) {
    const alarm = ALARMS[r.u8()];
    if (alarm) a[Attr.alarm] = alarm;
  } else if (type === MSG.state && r.remaining >= 7) {
    a[Attr.event] = r.u8();
    r.skip(4); // time of the state change: the record's own
    status(r.u16(), a);
  }
  return rec;
}

// ---- OBD ------------------------------------------------------------------------------------------

/** SAE J1979 mode 01 value sizes for the PIDs with a formula below. */
const OBD: Record<number, [size: number, name: string, convert: (v: number) => number]> = {
  0x04: [1, Attr.engineLoad, (v) => (v * 100) / 255],
  0x05: [1, Attr.coolantTemp, (v) => v - 40],
  0x0c: [2, Attr.rpm, (v) => v / 4],
  0x0d: [1, Attr.obdSpeed, (v) => v],
  0x0f: [1, 'intakeTemp', (v) => v - 40],
  0x10: [2, 'maf', (v) => v / 100],
  0x11: [1, Attr.throttle, (v) => (v * 100) / 255],
  0x1f: [2, 'runTime', (v) => v],
  0x21: [2, 'milDistance', (v) => v],
  0x2f: [1, Attr.fuelLevel, (v) => (v * 100) / 255],
  0x31: [2, 'clearedDistance', (v) => v],
  0x46: [1, 'ambientTemp', (v) => v - 40],
};

function decodeObd(r: Reader): DeviceRecord[] {
  if (r.remaining === 4) {
    // The short form carries the status word only.
    const a: Attrs = {};
    status(r.u16(), a);
    return [{ attributes: a }];
  }
  const time = r.u32() * 1000;
  const a: Attrs = {};
  while (r.remaining >= 5) {
    const pid = r.u8();
    const value = r.bytes(4);
    const known = OBD[pid];
    if (known) a[known[1]] = known[2](value.readUIntBE(0, known[0]));
  }
  return [{ time, attributes: a }];
}

// ---- protocol 2.0 ---------------------------------------------------------------------------------

function decodeNew(type: number, r: Reader): DeviceRecord {
  const time = r.u32() * 1000;
  const mask = r.u8();
  const rec: DeviceRecord = { time, attributes: {} };
  const a = rec.attributes;
  if (mask & 0x01) {
    Object.assign(rec, { lat: coordinate(r), lng: coordinate(r), altitude: r.i16(), speed: r.u16(), course: r.u16() % 360, satellites: r.u8() });
    checkRange(rec);
  }
  const cells: Cell[] = [];
  if (mask & 0x02) {
    const [mcc, mnc, lac, cid, rssi] = [r.u16(), r.u16(), r.u16(), r.u32(), r.u8()];
    cells.push({ mcc, mnc, lac, cid, rssi });
    for (const bit of [0x04, 0x08]) if (mask & bit) cells.push({ mcc, mnc, lac: r.u16(), cid: r.u32(), rssi: r.u8() });
  } else {
    for (const bit of [0x04, 0x08]) if (mask & bit) r.skip(7);
  }
  if (cells.length) rec.cells = cells;
  if (mask & 0x10) a.wifi = `${r.hex(6).replace(/(..)(?!$)/g, '$1:')},${r.i8()}`;
  // Sections of higher mask bits have no layout known here: the rest is not read.
  if (mask & 0xe0) {
    if (rec.lat !== undefined) rec.valid = true;
    return rec;
  }
  if (type === MSG.warning) {
    const alarm = ALARMS[r.u8()];
    if (alarm) a[Attr.alarm] = alarm;
    if (r.remaining >= 2) status(r.u16(), a);
  } else if (r.remaining >= 4) {
    status(r.u16(), a);
    a[Attr.battery] = r.u16() / 1000;
    if (r.remaining >= 4) Object.assign(a, { adc1: r.u16() / 1000, adc2: r.u16() / 1000 });
    if (r.remaining >= 4) a[Attr.odometer] = r.u32();
    if (r.remaining >= 4) r.skip(4); // GSM and GPS activity counters
    // Sensor models end with 18 bytes whose last two are the second thermometer (1/16 °C).
    if (r.remaining === 18) {
      r.skip(16);
      a.temp2 = r.i16() / 16;
    }
  }
  if (typeof a[Attr.status] === 'number') rec.valid = rec.lat !== undefined && (Number(a[Attr.status]) & 0x01) === 1;
  else if (rec.lat !== undefined) rec.valid = true;
  return rec;
}

// ---- instruction replies ----------------------------------------------------------------------------

const TEXT_FIX = /Lat:([NS])([\d.]+)\s*,?\s*Lon:([EW])([\d.]+)\s*,?\s*Course:([\d.]+)\s*,?\s*Speed:([\d.]+)\s*km\/h\s*,?\s*Date ?Time:(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)/i;

function decodeInstruction(r: Reader): DeviceRecord[] {
  r.skip(5); // instruction type, server flag
  const text = r.ascii(r.remaining);
  const m = TEXT_FIX.exec(text);
  if (!m) return [{ attributes: { [Attr.result]: text } }];
  const [, ns, lat, ew, lng, course, speed, y, mo, d, h, mi, s] = m;
  return [
    checkRange({
      time: Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)),
      valid: true,
      lat: Number(lat) * (ns.toUpperCase() === 'S' ? -1 : 1),
      lng: Number(lng) * (ew.toUpperCase() === 'W' ? -1 : 1),
      course: Number(course) % 360,
      speed: Number(speed),
      attributes: { [Attr.result]: text },
    }),
  ];
}

// ---- entry ------------------------------------------------------------------------------------------

interface Session {
  last?: LastFix;
}

/** The login reply of protocol 2.0 carries the server time, the protocol version (1) and no action. */
function loginReply(index: number, content: number, now: number): Buffer {
  if (content <= 10) return packet(MSG.login, index);
  const c = Buffer.alloc(7);
  c.writeUInt32BE(Math.floor(now / 1000), 0);
  c.writeUInt16BE(1, 4);
  return packet(MSG.login, index, c);
}

function decodePacket(r: Reader, ctx: DecodeContext, out: { id?: string; records: DeviceRecord[]; acks: Buffer[] }): void {
  if (r.u16() !== HEADER) throw new DecodeError('eelink: no packet header');
  const type = r.u8();
  const length = r.u16();
  if (length < 2) throw new DecodeError('eelink: bad length');
  const p = new Reader(r.bytes(length));
  const index = p.u16();
  const session = ctx.session as Session;
  const place = (rec: DeviceRecord) => {
    if (rec.lat === undefined) withLastFix(rec, session);
    else rememberFix(session, rec);
    return rec;
  };
  switch (type) {
    case MSG.login:
      out.id = p.hex(8).replace(/^0/, '');
      out.acks.push(loginReply(index, length - 2, ctx.now));
      return;
    case MSG.gps:
    case MSG.alarm:
    case MSG.state:
      out.records.push(place(decodeOld(type, p)));
      break;
    case MSG.heartbeat: {
      const a: Attrs = {};
      if (p.remaining >= 2) status(p.u16(), a);
      out.records.push({ attributes: a });
      break;
    }
    case MSG.obd:
      out.records.push(...decodeObd(p));
      break;
    case MSG.location:
    case MSG.warning:
      out.records.push(place(decodeNew(type, p)));
      break;
    case MSG.instruction:
      out.records.push(...decodeInstruction(p));
      return; // the device's answer to the server is not acknowledged
  }
  if (type !== MSG.gps) out.acks.push(packet(type, index));
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  const out: { id?: string; records: DeviceRecord[]; acks: Buffer[] } = { records: [], acks: [] };
  let imei: string | undefined;
  if (frame.length >= 2 && frame.readUInt16BE(0) === EL) {
    r.skip(2);
    const length = r.u16();
    const end = Math.min(frame.length, 4 + length);
    const checksum = r.u16();
    if (end < 14 || elChecksum(frame, 6, end) !== checksum) throw new DecodeError('eelink: bad EL checksum');
    imei = r.hex(8).replace(/^0/, '');
    const body = new Reader(frame, r.pos, end);
    while (body.remaining > 0) decodePacket(body, ctx, out);
  } else {
    decodePacket(r, ctx, out);
  }
  const deviceId = out.id ?? imei;
  const acks = Buffer.concat(out.acks);
  const reply = !acks.length ? undefined : imei ? datagram(imei, acks) : acks;
  return { deviceId, records: out.records, reply };
}

// ---- commands -----------------------------------------------------------------------------------------

const TEXTS: Record<string, (c: Command) => string> = {
  custom: (c) => String(c.attributes.data ?? ''),
  positionSingle: () => 'WHERE#',
  engineStop: () => 'RELAY,1#',
  engineResume: () => 'RELAY,0#',
  rebootDevice: () => 'RESET#',
};

/** An instruction (0x80, index 0): `u8 1 | u32 server flag 0 | text`, in an `EL` datagram over UDP. */
function encode(command: Command, ctx: EncodeContext): Buffer {
  const text = TEXTS[command.type];
  if (!text) throw new Error(`eelink: unsupported command ${command.type}`);
  const content = Buffer.concat([Buffer.from([1, 0, 0, 0, 0]), Buffer.from(text(command), 'utf8')]);
  const p = packet(MSG.instruction, 0, content);
  return ctx.transport === 'udp' ? datagram(ctx.deviceId, p) : p;
}

export const protocol: Protocol = {
  name: 'eelink',
  defaultPort: 5064,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(TEXTS),
  carriesText: false,
  encode,
};
