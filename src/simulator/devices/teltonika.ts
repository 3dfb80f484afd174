/**
 * Teltonika FMB device side: IMEI login (`u16 length | IMEI`, answered 0x01), then Codec 8 Extended
 * AVL packets `00000000 | u32 length | 8E | count | records | count | u32 CRC-16/IBM`, each answered
 * with the accepted record count as u32. A Codec 12 command from the server gets a type 0x06 reply.
 */
import { crc16Ibm as crc16Arc } from '../../../protocols/binary.ts';
import type { Device, DeviceProtocol, Reply, ReplyReader, SimFix } from '../types.ts';

const CODEC_8E = 0x8e;
const CODEC_12 = 0x0c;

/** IO elements we send, by value size: [AVL id, value of the fix]. Meanings as the FMB manuals give them. */
const IO_1: Array<[number, (f: SimFix) => number]> = [
  [239, (f) => (f.ignition ? 1 : 0)], // ignition
  [240, (f) => (f.motion ? 1 : 0)], // movement
  [1, (f) => f.inputs & 1], // DIN1
  [2, (f) => (f.inputs >> 1) & 1], // DIN2
  [21, (f) => f.rssi], // GSM signal
  [89, (f) => f.fuelLevel], // fuel level, %
];
const IO_2: Array<[number, (f: SimFix) => number]> = [
  [66, (f) => Math.round(f.power * 1000)], // external voltage, mV
  [67, (f) => Math.round(f.battery * 1000)], // battery voltage, mV
  [182, (f) => Math.round(f.hdop * 10)], // GNSS HDOP
];
const IO_4: Array<[number, (f: SimFix) => number]> = [[16, (f) => f.odometer]]; // total odometer, m

const RECORD_SIZE = 24 + 2 + 2 + 2 + IO_1.length * 3 + 2 + IO_2.length * 4 + 2 + IO_4.length * 6 + 2 + 2;

/** Writes one Codec 8E record at `o`: GPS element, then IO counts and elements with 2-byte ids. */
function writeRecord(b: Buffer, o: number, f: SimFix): number {
  o = b.writeUInt32BE(Math.floor(f.time / 2 ** 32), o); // u64 ms, as two halves (no BigInt)
  o = b.writeUInt32BE(f.time >>> 0, o);
  o = b.writeUInt8(0, o); // priority low
  o = b.writeInt32BE(Math.round(f.lng * 1e7), o);
  o = b.writeInt32BE(Math.round(f.lat * 1e7), o);
  o = b.writeInt16BE(f.altitude, o);
  o = b.writeUInt16BE(f.course, o);
  o = b.writeUInt8(f.satellites, o);
  o = b.writeUInt16BE(f.speed, o);
  o = b.writeUInt16BE(f.event, o);
  o = b.writeUInt16BE(IO_1.length + IO_2.length + IO_4.length, o);
  o = b.writeUInt16BE(IO_1.length, o);
  for (const [id, v] of IO_1) o = b.writeUInt8(v(f), b.writeUInt16BE(id, o));
  o = b.writeUInt16BE(IO_2.length, o);
  for (const [id, v] of IO_2) o = b.writeUInt16BE(v(f), b.writeUInt16BE(id, o));
  o = b.writeUInt16BE(IO_4.length, o);
  for (const [id, v] of IO_4) o = b.writeUInt32BE(v(f) >>> 0, b.writeUInt16BE(id, o));
  o = b.writeUInt16BE(0, o); // no 8-byte elements
  return b.writeUInt16BE(0, o); // no variable-length elements
}

/** `00000000 | u32 length | data | u32 CRC-16/IBM(data)`: the AVL and Codec 12 envelope around `data` at offset 8. */
function seal(out: Buffer): Buffer {
  const length = out.length - 12;
  out.writeUInt32BE(0, 0);
  out.writeUInt32BE(length, 4);
  out.writeUInt32BE(crc16Arc(out, 8, 8 + length), 8 + length);
  return out;
}

/** One AVL packet, written in place: flood mode builds hundreds of thousands of records a second. */
export function avlPacket(fixes: SimFix[]): Buffer {
  const n = fixes.length;
  const out = Buffer.allocUnsafe(8 + 2 + n * RECORD_SIZE + 1 + 4);
  out[8] = CODEC_8E;
  out[9] = n;
  let o = 10;
  for (const f of fixes) o = writeRecord(out, o, f);
  out[o] = n;
  return seal(out);
}

export function loginPacket(imei: string): Buffer {
  const id = Buffer.from(imei, 'ascii');
  const b = Buffer.alloc(2 + id.length);
  b.writeUInt16BE(id.length, 0);
  id.copy(b, 2);
  return b;
}

/** The device's Codec 12 response (type 0x06) to a command text. */
function commandResponse(text: string): Buffer {
  const body = Buffer.from(text, 'latin1');
  const out = Buffer.alloc(8 + 3 + 4 + body.length + 1 + 4);
  out.writeUInt8(CODEC_12, 8);
  out.writeUInt8(1, 9);
  out.writeUInt8(0x06, 10);
  out.writeUInt32BE(body.length, 11);
  body.copy(out, 15);
  out.writeUInt8(1, 15 + body.length);
  return seal(out);
}

/**
 * Server bytes: first the 1-byte login answer, then u32 record counts. A Codec 12 command also
 * starts with 4 zero bytes; it is told from a zero count by its codec byte at offset 8.
 */
function replies(): ReplyReader {
  let loggedIn = false;
  return {
    next(buf) {
      if (!loggedIn) {
        if (buf.length < 1) return null;
        loggedIn = buf[0] === 0x01;
        return { reply: { kind: 'login', ok: loggedIn }, consumed: 1 };
      }
      if (buf.length < 4) return null;
      if (buf.readUInt32BE(0) === 0 && buf.length >= 9 && buf[8] === CODEC_12) {
        const size = buf.readUInt32BE(4) + 12;
        if (size > 65536) throw new Error('teltonika: command frame too long');
        if (buf.length < size) return null;
        const text = buf.length >= 15 && buf[10] === 0x05 ? buf.subarray(15, 15 + buf.readUInt32BE(11)).toString('latin1') : '';
        const reply: Reply = { kind: 'command', answer: commandResponse(`OK ${text}`) };
        return { reply, consumed: size };
      }
      return { reply: { kind: 'ack', count: buf.readUInt32BE(0) }, consumed: 4 };
    },
  };
}

export const teltonika: DeviceProtocol = {
  name: 'teltonika',
  defaultPort: 5027,
  maxRecords: 255, // the record count is one byte
  idPattern: /^\d{1,20}$/, // the IMEI packet carries digits
  createDevice(deviceId): Device {
    return {
      login: () => loginPacket(deviceId),
      packet: (fixes) => ({ bytes: avlPacket(fixes), units: [fixes.length] }),
      replies,
    };
  },
};
