/**
 * Smokey (UDP): `"SM" | u8 protocol version | u8 type | 8-byte id (hex) | ...`. Type 0 is a data record:
 * `u16 firmware | u16 status | u32 seconds since 2000 | u8 index | u16 report | u16 length | u16 battery (mV) |` then
 * cells (one for report 0x0200, `u8 count` of them otherwise; none for 0x0203: `u16 mcc, mnc, lac, cid`, a timing
 * advance byte after the first, `i8 rssi`) and, for reports 0x0202 and 0x0203, `u8 count` Wi-Fi access points
 * (NUL-terminated SSID, 6-byte MAC, i8 rssi). The record takes the connection's last fix (none: a status record).
 * It is answered `"SM" 03 01 | id | u32 seconds since 2000 (now) | index | report - 0x200 | u16 XOR checksum`.
 */
import { Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { withLastFix, type LastFix } from './last-fix.ts';
import { macColons, wifiAttribute } from './text.ts';
import { DecodeError, type Cell, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MSG_DATE_RECORD = 0;
const MSG_DATE_RECORD_ACK = 1;
const EPOCH_2000 = Date.UTC(2000, 0, 1);

function answer(id: Buffer, now: number, index: number, report: number): Buffer {
  const b = Buffer.alloc(2 + 1 + 1 + 8 + 4 + 1 + 1 + 2);
  b.write('SM', 0, 'latin1');
  b[2] = 3;
  b[3] = MSG_DATE_RECORD_ACK;
  id.copy(b, 4);
  b.writeUInt32BE(Math.floor((now - EPOCH_2000) / 1000) >>> 0, 12);
  b[16] = index;
  b[17] = (report - 0x200) & 0xff;
  let checksum = 0xf5a0;
  for (let i = 0; i < 18; i += 2) checksum ^= b.readUInt16LE(i);
  b.writeUInt16BE(checksum, 18);
  return b;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  if (r.ascii(2) !== 'SM') throw new DecodeError('smokey: no SM header');
  r.skip(1); // protocol version
  const type = r.u8();
  const id = Buffer.from(r.bytes(8));
  const deviceId = id.toString('hex');
  if (type !== MSG_DATE_RECORD) return { deviceId };
  const rec: DeviceRecord = { attributes: { versionFw: r.u16(), [Attr.status]: r.u16() } };
  const time = EPOCH_2000 + r.u32() * 1000;
  const index = r.u8();
  rec.attributes[Attr.index] = index;
  const report = r.u16();
  r.skip(2); // length
  rec.attributes[Attr.battery] = r.u16() / 1000;
  const cells: Cell[] = [];
  if (report !== 0x0203) {
    const count = report === 0x0200 ? 1 : r.u8();
    for (let i = 0; i < count; i++) {
      const cell = { mcc: r.u16(), mnc: r.u16(), lac: r.u16(), cid: r.u16() };
      if (i === 0) r.skip(1); // timing advance
      cells.push({ ...cell, rssi: r.i8() });
    }
  }
  if (report === 0x0202 || report === 0x0203) {
    const points: Array<{ mac: string; rssi: number }> = [];
    for (let n = r.u8(); n > 0; n--) {
      const end = frame.indexOf(0, r.pos);
      if (end < 0) throw new DecodeError('smokey: unterminated SSID');
      r.skip(end + 1 - r.pos);
      points.push({ mac: macColons(r.hex(6)), rssi: r.i8() });
    }
    if (points.length) rec.attributes.wifi = wifiAttribute(points);
  }
  if (cells.length) rec.cells = cells;
  rec.time = time;
  withLastFix(rec, ctx.session as { last?: LastFix });
  rec.time = time;
  return { deviceId, records: [rec], reply: answer(id, ctx.now, index, report) };
}

export const protocol: Protocol = {
  name: 'smokey',
  defaultPort: 5125,
  transports: ['udp'],
  maxFrameSize: 1024,
  decode,
  commands: [],
};
