/**
 * TZONE (TZ-AVL and TAG reader families) binary protocol.
 *
 *   `TZ | u16 length | $$ | u16 hardware | u32 firmware | 8-byte IMEI (hex, leading nibble dropped) |
 *    6-byte device time (binary yy mm dd hh mm ss) | blocks... | u16 serial | u16 CRC | \r\n`
 * The length counts from `$$` to the CRC; the CRC is CRC-16/MODBUS over the same bytes, without itself.
 * Each block is a u16 length and its bytes. Which blocks follow, and how a fix is written, depends on
 * the hardware type, so both live in the HARDWARE table below:
 *  - GPS: older hardware `satellites, lat u32, lng u32, yymmddhhmmss, speed u16 (0.01 km/h),
 *    mileage u24, flags u16 (course bits 0-8, bit 9 west, bit 10 north, bit 11 fixed)`; newer
 *    hardware (0x4xx) `status, yymmddhhmmss, lat i32, lng i32[, hdop u16 (0.1), altitude u16,
 *    course u16, speed u16 (0.1 km/h), satellites]`.
 *    Coordinates are in 1/600000 or 1/6000000 degree (1/10000 or 1/100000 minute) by hardware.
 *  - LBS: LAC and cell id (u16 each) on the older hardware; on 0x407 a count of
 *    `length, mcc, mnc (decimal digits written as hex), lac u16, cid u32` items.
 *  - status: alarm, terminal info, [IO bytes], GSM signal, GSM status, battery and supply (0.01 V),
 *    [analog inputs]; on the 0x407 logger battery, temperature, humidity and light instead.
 *  - extras: RFID tag lists (`count, 0x0a, count x 5-byte BCD ids`), a magnetic card (type byte, text),
 *    temperature tags of the TAG readers (`type, count, item length, items`).
 * Devices set to wait for acknowledgements take `@ACK,<serial>#` followed by `@UTC time:...` (the
 * server's clock, which they adopt); the decoder sends it when the configuration says `ack: true`.
 * Others expect no answer, so none is sent by default.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader, crc16Modbus, u16be } from './binary.ts';
import {
  DecodeError,
  FrameError,
  type AttrValue,
  type Cell,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type Framer,
  type Protocol,
} from './types.ts';

const MAX_FRAME = 2048;
const HEADER = 26; // TZ, length, $$, hardware, firmware, IMEI, time
const TRAILER = 6; // serial, CRC, CRLF

function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start + 1 < buffer.length && !(buffer[start] === 0x54 && buffer[start + 1] === 0x5a)) start++;
      if (start + 4 > buffer.length) {
        if (buffer.length > MAX_FRAME) throw new FrameError('tzone: no TZ header');
        return null;
      }
      const size = 6 + u16be(buffer, start + 2);
      if (size < HEADER + TRAILER || size > MAX_FRAME) throw new FrameError('tzone: bad length');
      if (buffer.length - start < size) return null;
      return { frame: buffer.subarray(start, start + size), consumed: start + size };
    },
  };
}

type Block = 'gps' | 'lbs' | 'status' | 'tags';
type Extra = 'rfid' | 'card' | 'passengers' | undefined;

interface Hardware {
  /** The main blocks, in order. */
  blocks: Block[];
  /** 'old': lat/lng before the time, flags word; 'new': time first, course word. */
  gps: 'old' | 'new';
  /** Units per degree of the coordinates. */
  scale: number;
  /** IO status bytes between the terminal info and the GSM signal. */
  ioBytes: number;
  /** Meaning of each extra block by position. */
  extras: Extra[];
  /** The LBS block lists cells with MCC and MNC (else it is one LAC and cell id). */
  cellList?: boolean;
  /** The status block ends with temperature, humidity and light instead of supply and analog inputs. */
  sensors?: boolean;
}

const OLD: Hardware = { blocks: ['gps', 'lbs', 'status'], gps: 'old', scale: 600_000, ioBytes: 2, extras: [] };
const NEW: Hardware = { blocks: ['gps', 'lbs', 'status'], gps: 'new', scale: 6_000_000, ioBytes: 0, extras: [] };

const HARDWARE: Record<number, Hardware> = {
  0x10a: { ...OLD, extras: [undefined, undefined, undefined, 'rfid'] },
  // RFID blocks, then temperature and lock blocks, then the passenger counters
  0x10b: { ...OLD, extras: [undefined, undefined, undefined, 'rfid', undefined, undefined, 'passengers'] },
  0x111: OLD,
  0x153: { ...OLD, scale: 6_000_000, ioBytes: 1, extras: ['card'] },
  // TAG readers: no GPS, temperature tags in the third block
  0x406: { ...NEW, blocks: ['lbs', 'status', 'tags'] },
  // humidity and temperature logger with a cell list
  0x407: { ...NEW, cellList: true, sensors: true },
  // the sample of this hardware (Shenzhen) only makes sense in millionths of a degree
  0x40a: { ...NEW, scale: 1_000_000 },
  0x413: NEW,
};

// ---- blocks -----------------------------------------------------------------------------------

function time(r: Reader): number {
  const [y, mo, d, h, mi, s] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  // an all-zero time (no fix yet) stays as devices and other servers read it: day 0 of month 0 of 2000
  if (mo > 12 || d > 31 || h > 23 || mi > 59 || s > 59) throw new DecodeError('tzone: bad time');
  return Date.UTC(2000 + y, mo - 1, d, h, mi, s);
}

function gps(r: Reader, hw: Hardware, rec: DeviceRecord): void {
  if (r.remaining < 19) return;
  if (hw.gps === 'old') {
    rec.satellites = r.u8();
    const lat = r.u32() / hw.scale;
    const lng = r.u32() / hw.scale;
    rec.time = time(r);
    rec.speed = r.u16() * 0.01;
    const mileage = r.u24();
    if (mileage) rec.attributes.mileage = mileage;
    const flags = r.u16();
    rec.course = flags & 0x1ff;
    rec.lat = flags & 0x400 ? lat : -lat;
    rec.lng = flags & 0x200 ? -lng : lng;
    rec.valid = (flags & 0x800) !== 0;
  } else {
    r.skip(1); // GPS status
    rec.time = time(r);
    rec.lat = r.i32() / hw.scale;
    rec.lng = r.i32() / hw.scale;
    if (r.remaining >= 9) {
      rec.hdop = r.u16() * 0.1;
      rec.altitude = r.u16();
      const course = r.u16();
      if (course <= 360) rec.course = course;
      rec.speed = r.u16() * 0.1;
      rec.satellites = r.u8();
    }
    rec.valid = rec.satellites !== 0 && (rec.lat !== 0 || rec.lng !== 0);
  }
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('tzone: coordinates out of range');
}

/** Digits written as hex (0x0334 = 334). */
const digits = (v: number): number => Number(v.toString(16).replace(/[a-f]/g, ''));

function lbs(r: Reader, hw: Hardware, rec: DeviceRecord): void {
  const cells: Cell[] = [];
  if (r.remaining === 4) {
    // MCC and MNC are not sent: the cell is known by its LAC and id only
    cells.push({ mcc: 0, mnc: 0, lac: r.u16(), cid: r.u16() });
  } else if (hw.cellList && r.remaining >= 1) {
    const count = r.u8();
    for (let i = 0; i < count && r.remaining >= 11; i++) {
      r.skip(1); // signal
      cells.push({ mcc: digits(r.u16()), mnc: digits(r.u16()) % 1000, lac: r.u16(), cid: r.u32() });
    }
  }
  if (cells.length) rec.cells = cells;
}

const ALARMS: Record<number, string> = {
  0x01: Alarm.sos,
  0x10: Alarm.lowBattery,
  0x11: Alarm.overspeed,
  0x14: Alarm.hardBraking,
  0x15: Alarm.hardAcceleration,
  0x30: Alarm.parking,
  0x42: Alarm.geofenceExit,
  0x43: Alarm.geofenceEnter,
};

function status(r: Reader, hw: Hardware, a: Record<string, AttrValue>): void {
  if (r.remaining < 4 + hw.ioBytes) return;
  const event = r.u8();
  a[Attr.event] = event;
  if (ALARMS[event]) a[Attr.alarm] = ALARMS[event];
  a[Attr.status] = r.u8(); // terminal info
  if (hw.ioBytes === 2) {
    const out = r.u8();
    const input = r.u8();
    a[Attr.output] = out;
    a[Attr.input] = input;
    a[indexed.out(1)] = (out & 0x01) !== 0;
    a[indexed.out(2)] = (out & 0x02) !== 0;
    a[indexed.in(1)] = (input & 0x10) !== 0;
    if (input & 0x01) a[Attr.alarm] = Alarm.sos;
  } else if (hw.ioBytes === 1) a[Attr.input] = r.u8();
  a[Attr.rssi] = r.u8();
  a.gsmStatus = r.u8();
  if (r.remaining >= 2) a[Attr.battery] = r.u16() * 0.01;
  if (hw.sensors) {
    // temperature (0.1 °C, bit 14 below zero, bit 15 no sensor), humidity (0.1 %, bit 15 no sensor), light
    if (r.remaining >= 2) {
      const t = r.u16();
      if (!(t & 0x8000)) a[indexed.temp(1)] = ((t & 0x4000 ? -1 : 1) * (t & 0x3fff)) / 10;
    }
    if (r.remaining >= 2) {
      const h = r.u16();
      if (!(h & 0x8000)) a.humidity = h / 10;
    }
    if (r.remaining >= 1) a.light = r.u8() === 0;
    return;
  }
  if (r.remaining >= 2) a[Attr.power] = r.u16() * 0.01;
  if (hw.ioBytes === 2) {
    if (r.remaining >= 2) a[indexed.adc(1)] = r.u16();
    if (r.remaining >= 2) a[indexed.adc(2)] = r.u16();
  }
}

/** Temperature tags: type, count, item length; items `id u32, status, battery mV u16, temperature u16 (0.1 °C, bit 14 below zero)`. */
function tags(r: Reader, a: Record<string, AttrValue>): void {
  if (r.remaining < 3) return;
  r.skip(1);
  const count = r.u8();
  const size = r.u8();
  if (size < 9) return;
  for (let i = 1; i <= count && r.remaining >= size; i++) {
    const next = r.pos + size;
    r.skip(5);
    const battery = r.u16();
    const raw = r.u16();
    const t = (raw & 0x3fff) * 0.1;
    a[indexed.temp(i)] = Math.round((raw & 0x4000 ? -t : t) * 10) / 10;
    a[`tagBattery${i}`] = battery / 1000;
    r.pos = next;
  }
}

function extra(kind: Extra, r: Reader, a: Record<string, AttrValue>): void {
  if (kind === 'card' && r.remaining > 1) {
    r.skip(1); // card type
    a.card = r.ascii(r.remaining);
  } else if (kind === 'passengers' && r.remaining >= 6) {
    a.passengersOn = r.u24();
    a.passengersOff = r.u24();
  } else if (kind === 'rfid' && r.remaining >= 2) {
    const count = r.u8();
    const digitCount = r.u8();
    const size = Math.ceil(digitCount / 2);
    const ids: string[] = [];
    for (let i = 0; i < count && size > 0 && r.remaining >= size; i++) ids.push(r.hex(size));
    if (ids.length) a.rfid = ids.join(',');
  }
}

/** `@ACK,<serial>#@UTC time:yyyy-MM-dd HH:mm:ss`: confirms the report and sets the device clock. */
function ack(serial: number, now: number): Buffer {
  const utcTime = new Date(now).toISOString().slice(0, 19).replace('T', ' ');
  return Buffer.from(`@ACK,${serial}#@UTC time:${utcTime}`, 'latin1');
}

// ---- decoding ---------------------------------------------------------------------------------

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length < HEADER + TRAILER - 2 || frame[0] !== 0x54 || frame[1] !== 0x5a || frame[4] !== 0x24 || frame[5] !== 0x24) {
    throw new DecodeError('tzone: not a TZ packet');
  }
  const end = frame[frame.length - 2] === 0x0d && frame[frame.length - 1] === 0x0a ? frame.length - 2 : frame.length;
  if (u16be(frame, 2) !== end - 4) throw new DecodeError('tzone: length mismatch');
  if (crc16Modbus(frame, 4, end - 2) !== u16be(frame, end - 2)) throw new DecodeError('tzone: bad CRC');
  const r = new Reader(frame, 6, end - 4);
  const hardware = r.u16();
  const firmware = r.u32();
  const imei = r.hex(8).slice(1);
  if (!/^\d+$/.test(imei)) throw new DecodeError('tzone: bad IMEI');
  const hw = HARDWARE[hardware] ?? (hardware >= 0x400 ? NEW : OLD);
  const a: Record<string, AttrValue> = { versionHw: hardware, versionFw: firmware };
  const rec: DeviceRecord = { time: time(r), attributes: a };
  const block = (): Reader => {
    const n = r.u16();
    const b = new Reader(frame, r.pos, r.pos + n);
    r.skip(n);
    return b;
  };
  for (const kind of hw.blocks) {
    const b = block();
    if (kind === 'gps') gps(b, hw, rec);
    else if (kind === 'lbs') lbs(b, hw, rec);
    else if (kind === 'status') status(b, hw, a);
    else tags(b, a);
  }
  for (let i = 0; r.remaining >= 2; i++) {
    const b = block();
    if (b.remaining) extra(hw.extras[i], b, a);
  }
  const serial = u16be(frame, end - 4);
  a[Attr.index] = serial;
  const result: DecodeResult = { deviceId: imei, records: [rec] };
  if (ctx.config.ack === true) result.reply = ack(serial, ctx.now);
  return result;
}

export const protocol: Protocol = {
  name: 'tzone',
  defaultPort: 5029,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
  carriesText: false,
};
