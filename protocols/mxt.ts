/**
 * Maxtrack (MXT) binary protocol. A frame runs from 0x01 to 0x04; inside, 0x10 escapes a byte as
 * byte+0x20 (the framer undoes it). After the start: device descriptor (u8), message type (u8),
 * device id (u32 LE). Position messages (0x31): protocol (u8), info-group mask (u8), index (u16 LE),
 * time (u32 LE bit fields: days since 2000-01-01 from bit 17, hours 12..16, minutes 6..11, seconds
 * 0..5), latitude and longitude (i32 LE, 1e-6 degrees), flags (u32 LE), speed (km/h), input mask,
 * then the optional groups the mask names; the frame ends with its CRC (u16 LE) and 0x04.
 * The device expects an ACK (type 0x02) echoing its id and the CRC of the message, itself
 * CRC-16/XMODEM protected and escaped.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader, crc16Xmodem } from './binary.ts';
import { escapeBytes, escapedFramer } from './framers.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const MSG_ACK = 0x02;
const MSG_POSITION = 0x31;
const SPECIAL = [0x01, 0x04, 0x10, 0x11, 0x13];
const DAY = 86_400_000;
const EPOCH = Date.UTC(2000, 0, 1);
const WEEKS_1024 = 7 * 1024 * DAY;
/** Times before the GPS week-number rollover of 2019-04-07 may be rolled-over ones. */
const ROLLOVER = Date.UTC(2019, 3, 7);

type Group = (r: Reader, a: Record<string, AttrValue>, rec: DeviceRecord) => void;

/** The optional info groups, by bit of the mask, in wire order. */
const GROUPS: Group[] = [
  (r) => r.skip(8), // 0: waypoints
  (r) => r.skip(8), // 1: wireless accessory
  (r, a, rec) => {
    // 2: GNSS and modem quality, supply
    rec.satellites = r.u8();
    rec.hdop = r.u8();
    rec.precision = r.u8();
    a[Attr.rssi] = r.u8();
    r.skip(2); // time since boot
    a[Attr.power] = r.u8();
    a[indexed.temp(1)] = r.i8();
  },
  (r, a) => (a[Attr.odometer] = r.u32le()), // 3
  (r, a) => (a[Attr.hours] = r.u32le() * 60_000), // 4: minutes
  (r) => r.skip(4), // 5: reason
  (r, a) => {
    // 6: supply in mV, battery
    a[Attr.power] = r.u16le() / 1000;
    a[Attr.battery] = r.u16le();
  },
  (r, a) => (a[Attr.driverUniqueId] = String(r.u32le())), // 7
];

function position(r: Reader, now: number): DeviceRecord {
  r.skip(1); // protocol
  const groups = r.u8();
  const a: Record<string, AttrValue> = { [Attr.index]: r.u16le() };
  const date = r.u32le();
  let time = EPOCH + Math.floor(date / 0x20000) * DAY + (((date >>> 12) & 0x1f) * 3600 + ((date >>> 6) & 0x3f) * 60 + (date & 0x3f)) * 1000;
  // GNSS week-number rollover: a receiver that lost 1024 weeks reports a time 7168 days early
  if (time < ROLLOVER && time + WEEKS_1024 <= now + DAY) time += WEEKS_1024;
  const lat = r.i32le() / 1e6;
  const lng = r.i32le() / 1e6;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('mxt: coordinates out of range');
  const flags = r.u32le();
  a[Attr.ignition] = (flags & 1) !== 0;
  if (flags & 2) a[Attr.alarm] = Alarm.general;
  a[Attr.input] = (flags >>> 2) & 0x1f;
  a[Attr.output] = (flags >>> 7) & 0x07;
  a[Attr.charge] = (flags & (1 << 20)) !== 0;
  const rec: DeviceRecord = { time, valid: true, lat, lng, course: ((flags >>> 10) & 0x07) * 45, speed: r.u8(), attributes: a };
  r.skip(1); // input mask
  for (let bit = 0; bit < 8; bit++) if (groups & (1 << bit)) GROUPS[bit](r, a, rec);
  return rec;
}

function ack(device: number, id: number, crc: number): Buffer {
  const body = Buffer.alloc(10);
  body[0] = device;
  body[1] = MSG_ACK;
  body.writeUInt32LE(id, 2);
  body.writeUInt16LE(crc, 6);
  body.writeUInt16LE(crc16Xmodem(body, 0, 8), 8);
  return Buffer.concat([Buffer.from([0x01]), escapeBytes(body, SPECIAL, 0x10, 0x20), Buffer.from([0x04])]);
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  r.skip(1); // start
  const device = r.u8();
  const type = r.u8();
  const id = r.u32le();
  const deviceId = String(id);
  if (type !== MSG_POSITION) return { deviceId };
  if (frame.length < r.pos + 3) throw new DecodeError('mxt: truncated');
  const rec = position(new Reader(frame, r.pos, frame.length - 3), ctx.now);
  return { deviceId, records: [rec], reply: ack(device, id, frame.readUInt16LE(frame.length - 3)) };
}

export const protocol: Protocol = {
  name: 'mxt',
  defaultPort: 5087,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => escapedFramer('mxt', 0x01, 0x04, 0x10, 0x20, MAX_FRAME),
  decode,
  commands: [],
};
