/**
 * GT06/Concox device side: login 0x01 (IMEI in BCD), then one GPS+LBS frame 0x22 per record
 * (fix, serving cell, ACC, upload reason, re-upload flag, odometer). The server acknowledges every
 * frame with an empty frame of the same type echoing the serial number.
 *   78 78 | len | type | content | serial u16 | CRC-16/X-25 (len..serial) | 0D 0A
 */
import { crc16X25 } from '../../../protocols/binary.ts';
import type { Device, DeviceProtocol, ReplyReader, SimFix } from '../types.ts';

const LOGIN = 0x01;
const GPS_LBS = 0x22;
const COMMAND = 0x80;

export function frame(type: number, serial: number, content: Buffer): Buffer {
  const out = Buffer.alloc(4 + content.length + 6);
  out[0] = out[1] = 0x78;
  out[2] = 1 + content.length + 4; // type..CRC
  out[3] = type;
  content.copy(out, 4);
  const at = 4 + content.length;
  out.writeUInt16BE(serial & 0xffff, at);
  out.writeUInt16BE(crc16X25(out, 2, at + 2), at + 2);
  out[at + 4] = 0x0d;
  out[at + 5] = 0x0a;
  return out;
}

/** IMEI as 16 BCD digits (a leading 0 before the 15-digit IMEI) plus the model code. */
export function loginContent(imei: string): Buffer {
  const content = Buffer.alloc(10);
  Buffer.from(imei.padStart(16, '0').slice(-16), 'hex').copy(content, 0);
  content.writeUInt16BE(0x3608, 8); // type identification (any model code will do)
  return content;
}

/** Fix content of 0x22; times in UTC (the login announces no zone). */
export function gpsLbsContent(f: SimFix, resend: boolean): Buffer {
  const b = Buffer.alloc(33);
  const d = new Date(f.time);
  let o = 0;
  for (const v of [d.getUTCFullYear() - 2000, d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()]) o = b.writeUInt8(v, o);
  o = b.writeUInt8(0xc0 | Math.min(f.satellites, 15), o); // GPS info length 12, satellites
  o = b.writeUInt32BE(Math.round(Math.abs(f.lat) * 1800000), o);
  o = b.writeUInt32BE(Math.round(Math.abs(f.lng) * 1800000), o);
  o = b.writeUInt8(Math.min(f.speed, 255), o);
  // course bits 0-9, north bit 10, west bit 11, positioned bit 12
  o = b.writeUInt16BE((f.course & 0x3ff) | (f.lat >= 0 ? 0x400 : 0) | (f.lng < 0 ? 0x800 : 0) | 0x1000, o);
  o = b.writeUInt16BE(f.cell.mcc, o);
  o = b.writeUInt8(f.cell.mnc, o);
  o = b.writeUInt16BE(f.cell.lac, o);
  o = b.writeUIntBE(f.cell.cid & 0xffffff, o, 3);
  o = b.writeUInt8(f.ignition ? 1 : 0, o);
  o = b.writeUInt8(f.event === 239 ? 0x03 : 0x00, o); // upload reason: ACC change, else timed
  o = b.writeUInt8(resend ? 1 : 0, o); // re-upload of buffered data
  b.writeUInt32BE(f.odometer >>> 0, o);
  return b;
}

/** Server frames: acks of our login and fixes, or 0x80 commands (answered by nothing here). */
function replies(): ReplyReader {
  return {
    next(buf) {
      if (buf.length < 5) return null;
      const head = buf.readUInt16BE(0);
      if (head !== 0x7878 && head !== 0x7979) throw new Error('gt06: bad reply header');
      const size = head === 0x7878 ? buf[2] + 5 : buf.readUInt16BE(2) + 6;
      if (buf.length < size) return null;
      const type = buf[head === 0x7878 ? 3 : 4];
      if (type === LOGIN) return { reply: { kind: 'login', ok: true }, consumed: size };
      if (type === GPS_LBS) return { reply: { kind: 'ack', count: null }, consumed: size };
      if (type === COMMAND) return { reply: { kind: 'command' }, consumed: size };
      throw new Error(`gt06: unexpected reply type 0x${type.toString(16)}`);
    },
  };
}

export const gt06: DeviceProtocol = {
  name: 'gt06',
  defaultPort: 5023,
  maxRecords: 100, // one frame per record; a packet is a burst of frames
  idPattern: /^\d{15}$/, // an IMEI in 8 BCD bytes after a leading 0
  createDevice(deviceId): Device {
    let serial = 0;
    const next = () => (serial = (serial + 1) & 0xffff);
    return {
      login: () => frame(LOGIN, next(), loginContent(deviceId)),
      packet: (fixes, resend) => ({
        bytes: Buffer.concat(fixes.map((f) => frame(GPS_LBS, next(), gpsLbsContent(f, resend)))),
        units: fixes.map(() => 1),
      }),
      replies,
    };
  },
};
