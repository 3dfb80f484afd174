/**
 * Progress (Russian "Прогресс" trackers) binary protocol, little-endian: `u16 type | u16 length | body`, the frame
 * being 4 + length + 4 (CRC) bytes.
 *   1, 2 identification: `u32 id | three u16-length-prefixed strings, the last the IMEI`
 *   10 point, 200 alarm: one record after `u32 index`; 101 log: `u16 count` records, each `u16 subtype | u16 length |
 *   u32 index` before the record. A record: `u32 unix time | i32 lat, i32 lon (x 180 / 0x7FFFFFFF degrees) |
 *   u32 km/h x 100 | u16 course x 100 | u16 altitude x 100 | u8 satellites | u8 rssi | u32 odometer | u64 extra flags`
 *   then, by flag: 0 `u16 count` analog inputs, 1 CAN text, 2 passenger data | u32 CRC.
 * An alarm is answered `C9 00 00 00 00 00 00 00`; after a point newer than the archive the device is asked for it
 * (`u16 100 | u16 4 | u32 last index | u32 0`).
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { lengthFieldFramer, Reader } from './binary.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 65536;
const MSG_IDENT = 1;
const MSG_IDENT_FULL = 2;
const MSG_POINT = 10;
const MSG_LOG_SYNC = 100;
const MSG_LOGMSG = 101;
const MSG_ALARM = 200;
const SCALE = 180 / 0x7fffffff;

interface Session {
  lastIndex?: number;
  newIndex?: number;
}

function readRecord(r: Reader, rec: DeviceRecord): void {
  rec.time = r.u32le() * 1000;
  rec.lat = r.i32le() * SCALE;
  rec.lng = r.i32le() * SCALE;
  rec.speed = r.u32le() / 100;
  rec.course = (r.u16le() / 100) % 360;
  rec.altitude = r.u16le() / 100;
  const sats = r.u8();
  Object.assign(rec, { satellites: sats, valid: sats >= 3 });
  const a = rec.attributes;
  a[Attr.rssi] = r.u8();
  a[Attr.odometer] = r.u32le();
  const flags = r.u64le();
  if (flags % 2 === 1) for (let i = 1, n = r.u16le(); i <= n; i++) a[indexed.adc(i)] = r.u16le();
  if (Math.floor(flags / 2) % 2 === 1) a.can = r.ascii(r.u16le());
  if (Math.floor(flags / 4) % 2 === 1) a.passenger = r.hex(r.u16le());
  r.skip(4); // CRC
}

function archiveRequest(s: Session): Buffer | undefined {
  if (!s.lastIndex) {
    s.lastIndex = s.newIndex;
    return undefined;
  }
  if ((s.newIndex ?? 0) <= s.lastIndex) return undefined;
  const b = Buffer.alloc(12);
  b.writeUInt16LE(MSG_LOG_SYNC, 0);
  b.writeUInt16LE(4, 2);
  b.writeUInt32LE(s.lastIndex >>> 0, 4);
  return b;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  const type = r.u16le();
  r.skip(2); // length
  if (type === MSG_IDENT || type === MSG_IDENT_FULL) {
    r.skip(4); // id
    r.skip(r.u16le());
    r.skip(r.u16le());
    const imei = r.ascii(r.u16le());
    if (!/^\d{6,20}$/.test(imei)) throw new DecodeError('progress: bad IMEI');
    return { deviceId: imei };
  }
  if ((type !== MSG_POINT && type !== MSG_ALARM && type !== MSG_LOGMSG) || !ctx.deviceId) return {};
  const s = ctx.session as Session;
  const records: DeviceRecord[] = [];
  const count = type === MSG_LOGMSG ? r.u16le() : 1;
  for (let j = 0; j < count; j++) {
    const rec: DeviceRecord = { attributes: {} };
    if (type === MSG_LOGMSG) {
      rec.attributes[Attr.archive] = true;
      if (r.u16le() === MSG_ALARM) rec.attributes[Attr.alarm] = Alarm.general;
      if (r.u16le() > r.remaining) {
        s.lastIndex = (s.lastIndex ?? 0) + 1; // the device sends a wrong length on its last record
        break;
      }
      s.lastIndex = r.u32le();
      rec.attributes[Attr.index] = s.lastIndex;
    } else s.newIndex = r.u32le();
    readRecord(r, rec);
    if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('progress: coordinates out of range');
    if (type === MSG_ALARM) rec.attributes[Attr.alarm] = Alarm.general;
    records.push(rec);
  }
  const archive = archiveRequest(s);
  const ack = type === MSG_ALARM ? Buffer.from([0xc9, 0, 0, 0, 0, 0, 0, 0]) : undefined;
  const reply = ack && archive ? Buffer.concat([ack, archive]) : (ack ?? archive);
  return { records, reply };
}

export const protocol: Protocol = {
  name: 'progress',
  defaultPort: 5012,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  // u16le at offset 2 counts the body; the CRC adds 4
  createFramer: () => lengthFieldFramer('progress', 2, 2, 4, MAX_FRAME, true),
  decode,
  commands: [],
};
