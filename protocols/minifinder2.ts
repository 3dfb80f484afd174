/**
 * MiniFinder (Nano/Pico/Zepto generation) binary protocol, "minifinder2".
 *
 *   `AB | flags u8 | length u16 LE | CRC-16/XMODEM u16 LE | index u16 LE | type u8 | keys...`
 * The length and CRC cover `type` and the keys. Each key is `<length u8><key u8><value length-1 bytes>`.
 * Types: 0x01 data, 0x02 configuration, 0x03 services (the device asks for something), 0x04 commands,
 * 0x7F response. Flag bit 4 asks for an answer: `AB 00 len crc index 7F 01 00` (success), or for
 * services `03` followed by the answers to the keys asked (0x12: the time; 0x11/0x21/0x22: a position
 * lookup, answered with an empty location).
 * A data message holds one or more records: a key seen twice starts the next record.
 */
import { Alarm, Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { DecodeError, FrameError, type AttrValue, type Cell, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const HEADER = 0xab;
const MSG = { data: 0x01, configuration: 0x02, services: 0x03, command: 0x04, response: 0x7f } as const;

function createFramer(): Framer {
  return {
    next(buffer) {
      let start = buffer.indexOf(HEADER);
      if (start < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('minifinder2: no header');
        return null;
      }
      if (buffer.length - start < 4) return null;
      const length = 8 + buffer.readUInt16LE(start + 2);
      if (length > MAX_FRAME) throw new FrameError('minifinder2: frame too long');
      if (buffer.length - start < length) return null;
      return { frame: buffer.subarray(start, start + length), consumed: start + length };
    },
  };
}

/** CRC-16/XMODEM: poly 0x1021, init 0, no reflection. */
function crc16Xmodem(b: Buffer): number {
  let crc = 0;
  for (const x of b) {
    crc ^= x << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

function message(index: number, content: Buffer): Buffer {
  const out = Buffer.alloc(8 + content.length);
  out[0] = HEADER;
  out[1] = 0x00;
  out.writeUInt16LE(content.length, 2);
  out.writeUInt16LE(crc16Xmodem(content), 4);
  out.writeUInt16LE(index & 0xffff, 6);
  content.copy(out, 8);
  return out;
}

/** Keys of a message: [key, value] in order. */
function keys(frame: Buffer, from: number): Array<[number, Buffer]> {
  const out: Array<[number, Buffer]> = [];
  for (let i = from; i < frame.length; ) {
    const n = frame[i];
    if (n === 0 || i + 1 + n > frame.length) throw new DecodeError('minifinder2: key past the end');
    out.push([frame[i + 1], frame.subarray(i + 2, i + 1 + n)]);
    i += 1 + n;
  }
  return out;
}

function reply(index: number, type: number, ks: Array<[number, Buffer]>, now: number): Buffer {
  if (type !== MSG.services) return message(index, Buffer.of(MSG.response, 0x01, 0x00));
  const parts: Buffer[] = [Buffer.of(MSG.services)];
  for (const [key] of ks) {
    if (key === 0x11 || key === 0x21 || key === 0x22) parts.push(Buffer.of(10, key, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    else if (key === 0x12) {
      const b = Buffer.of(5, key, 0, 0, 0, 0);
      b.writeUInt32LE(Math.floor(now / 1000), 2);
      parts.push(b);
    }
  }
  return message(index, Buffer.concat(parts));
}

const ALARM_BITS: Array<[number, string]> = [
  [12, Alarm.sos],
  [0, Alarm.lowBattery],
  [1, Alarm.overspeed],
  [2, Alarm.fallDown],
  [8, Alarm.powerOff],
  [9, Alarm.powerOn],
];

/** A beacon or tag id: six bytes, least significant first. */
const tagId = (b: Buffer) => Buffer.from(b).reverse().toString('hex');

function location(r: Reader, rec: DeviceRecord): void {
  const lat = r.i32le() / 1e7;
  const lng = r.i32le() / 1e7;
  if (Math.abs(lat) <= 90 && Math.abs(lng) <= 180) Object.assign(rec, { lat, lng, valid: true });
}

/** One data key into the record. */
function dataKey(key: number, v: Buffer, rec: DeviceRecord): string | undefined {
  const a = rec.attributes;
  const r = new Reader(v);
  switch (key) {
    case 0x01:
      return v.toString('latin1', 0, 15);
    case 0x02: {
      const bits = r.u32le();
      const alarm = ALARM_BITS.find(([bit]) => Math.floor(bits / 2 ** bit) % 2 === 1);
      if (alarm) a[Attr.alarm] = alarm[1];
      if (bits >= 0x80000000) a.bark = true;
      break;
    }
    case 0x14:
      a[Attr.batteryLevel] = r.u8();
      a[Attr.battery] = r.u16le() / 1000;
      break;
    case 0x20: {
      const lat = r.i32le() / 1e7;
      const lng = r.i32le() / 1e7;
      const speed = r.u16le();
      const course = r.u16le();
      const altitude = r.i16le();
      const fix = r.u16le();
      if (Math.abs(lat) > 90 || Math.abs(lng) > 180) break;
      Object.assign(rec, { lat, lng, speed, course: course % 360, altitude, valid: fix > 0 });
      if (r.remaining >= 5) {
        a[Attr.odometer] = r.u32le();
        rec.satellites = r.u8();
      }
      break;
    }
    case 0x21: {
      const mcc = r.u16le();
      const mnc = r.u8();
      const cells: Cell[] = rec.cells ?? [];
      while (r.remaining >= 5) {
        const rssi = r.i8();
        cells.push({ mcc, mnc, lac: r.u16le(), cid: r.u16le(), rssi });
      }
      rec.cells = cells;
      break;
    }
    case 0x22: {
      const wifi: string[] = [];
      while (r.remaining >= 7) {
        const rssi = r.i8();
        wifi.push(`${r.hex(6).replace(/(..)(?!$)/g, '$1:')}@${rssi}`);
      }
      if (wifi.length) a.wifi = wifi.join(' ');
      break;
    }
    case 0x23:
      a.tagId = tagId(r.bytes(6));
      location(r, rec);
      if (r.remaining) a.description = r.ascii(r.remaining).replace(/\0+$/, '');
      break;
    case 0x24: {
      rec.time = r.u32le() * 1000;
      const status = r.u32le();
      a[Attr.batteryLevel] = status >>> 24;
      a[Attr.status] = status;
      break;
    }
    case 0x28:
    case 0x2c: {
      // beacon: flags, id, rssi, rssi at 1 m, [battery (0x2C)], [location if bit 7], [description if bit 6]
      const flags = r.u8();
      a.tagId = tagId(r.bytes(6));
      a.tagRssi = r.i8();
      a.tag1mRssi = r.i8();
      if (key === 0x2c) a.tagBattery = r.u8();
      if (flags & 0x80) location(r, rec);
      if (flags & 0x40 && r.remaining) {
        const text = key === 0x2c ? r.ascii(Math.min(r.u8(), r.remaining)) : r.ascii(r.remaining);
        a.description = text;
      }
      break;
    }
    case 0x2a: {
      // Wi-Fi or beacon place: flags, mac, rssi, [location if bit 7], [description if bit 6]
      const flags = r.u8();
      r.skip(6 + 1);
      if (flags & 0x80) location(r, rec);
      if (flags & 0x40 && r.remaining) a.description = r.ascii(r.remaining).replace(/\0+$/, '');
      break;
    }
    case 0x30:
      r.skip(4);
      a[Attr.steps] = r.u32();
      break;
    case 0x37:
      r.skip(4);
      a.barkCount = r.u32le();
      break;
    case 0x40: {
      r.skip(4);
      const rate = r.u8();
      if (rate > 1) a.heartRate = rate;
      break;
    }
  }
  return undefined;
}

interface Session {
  last?: LastFix;
}

function decodeData(ks: Array<[number, Buffer]>, session: Session): { deviceId?: string; records: DeviceRecord[] } {
  const records: DeviceRecord[] = [];
  let deviceId: string | undefined;
  let rec: DeviceRecord = { attributes: {} };
  let seen = new Set<number>();
  const close = () => {
    if (rec.lat === undefined) withLastFix(rec, session);
    else rememberFix(session, rec);
    records.push(rec);
  };
  for (const [key, value] of ks) {
    if (seen.has(key)) {
      close();
      rec = { attributes: {} };
      seen = new Set();
    }
    seen.add(key);
    const id = dataKey(key, value, rec);
    if (id) deviceId = id;
  }
  close();
  return { deviceId, records };
}

/** Configuration report: IMEI (0x03), ICCID (0x04), modem and firmware versions (0x1B). */
function decodeConfiguration(ks: Array<[number, Buffer]>, session: Session): { deviceId?: string; records: DeviceRecord[] } {
  const a: Record<string, AttrValue> = {};
  let deviceId: string | undefined;
  for (const [key, v] of ks) {
    if (key === 0x03) deviceId = v.toString('latin1', 0, 15);
    else if (key === 0x04) a[Attr.iccid] = v.toString('latin1').replace(/\0+$/, '');
    else if (key === 0x1b) a.versionFw = v.toString('latin1').replace(/\0+$/, '');
  }
  return { deviceId, records: Object.keys(a).length ? [withLastFix({ attributes: a }, session)] : [] };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length < 9 || frame[0] !== HEADER) throw new DecodeError('minifinder2: not a message');
  const flags = frame[1];
  const end = Math.min(frame.length, 8 + frame.readUInt16LE(2));
  const index = frame.readUInt16LE(6);
  const type = frame[8];
  const ks = keys(frame.subarray(0, end), 9);
  const answer = flags & 0x10 ? reply(index, type, ks, ctx.now) : undefined;
  const session = ctx.session as Session;
  let out: { deviceId?: string; records: DeviceRecord[] } = { records: [] };
  switch (type) {
    case MSG.data:
      out = decodeData(ks, session);
      break;
    case MSG.configuration:
      out = decodeConfiguration(ks, session);
      break;
    case MSG.services: {
      const imei = ks.find(([key]) => key === 0x01);
      out = { deviceId: imei?.[1].toString('latin1', 0, 15), records: [withLastFix({ attributes: { service: ks.map(([k]) => k).join(',') } }, session)] };
      break;
    }
    case MSG.command:
    case MSG.response: {
      // a command answer: its text (command type 0x04) or status code (response 0x7F)
      const [key, v] = ks[0] ?? [];
      if (key === undefined) break;
      const result = type === MSG.response ? String(key) : v!.subarray(v![0] === 0 ? 1 : 0).toString('latin1');
      out = { records: [withLastFix({ attributes: { [Attr.result]: result } }, session)] };
      break;
    }
  }
  return { deviceId: out.deviceId, records: out.records, reply: answer };
}

// ---- commands ---------------------------------------------------------------------------------

const COMMANDS: Record<string, (c: Command) => Buffer> = {
  // key 0x30: the URL of the new firmware
  firmwareUpdate: (c) => {
    const url = Buffer.from(String(c.attributes.data ?? ''), 'latin1');
    if (url.length > 250) throw new Error('minifinder2: firmware URL too long');
    return Buffer.concat([Buffer.of(MSG.command, url.length + 1, 0x30), url]);
  },
};

function encode(command: Command, _ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`minifinder2: unsupported command ${command.type}`);
  return message(1, build(command));
}

export const protocol: Protocol = {
  name: 'minifinder2',
  defaultPort: 5187,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  carriesText: false,
  encode,
};
