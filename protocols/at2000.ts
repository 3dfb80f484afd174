/**
 * AT2000 (Astra Telematics AT2000 family) binary protocol, AES-128-CBC encrypted after the first block.
 * Every message starts with a 16-byte header block: type (u8), length (u24 LE), padding; the device-id
 * message is preceded by a codec byte 0x01. Types:
 *   0x01 device id: IMEI (15 ASCII), the CBC initialisation vector (16), one encrypted block (16)
 *   0x89 track response: encrypted 63-byte records, the length padded to whole 16-byte blocks
 * The server asks for the track with a 0x88 request block after the device id. The cipher runs on
 * across messages of a connection (CBC chaining), so the session keeps the last ciphertext block.
 */
import { createDecipheriv } from 'node:crypto';
import { Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const BLOCK = 16;
const MSG_DEVICE_ID = 0x01;
const MSG_TRACK_REQUEST = 0x88;
const MSG_TRACK_RESPONSE = 0x89;
const RECORD = 63;
const MAX_FRAME = 65536;
/** The key every AT2000 uses (public in the vendor's integration notes and the open-source server). */
const KEY = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');

interface Session {
  /** The last ciphertext block: the IV of the next message. */
  iv?: Buffer;
}

function createFramer(): Framer {
  return {
    next(buffer) {
      const codec = buffer[0] === MSG_DEVICE_ID ? 1 : 0;
      if (buffer.length < codec + 4) return null;
      const type = buffer[codec];
      const length = buffer.readUIntLE(codec + 1, 3);
      const body = type === MSG_DEVICE_ID ? length : Math.ceil(length / BLOCK) * BLOCK;
      const total = codec + BLOCK + body;
      if (total > MAX_FRAME) throw new FrameError(`at2000: bad length ${length}`);
      return buffer.length < total ? null : { frame: buffer.subarray(0, total), consumed: total };
    },
  };
}

function decrypt(data: Buffer, iv: Buffer): Buffer {
  const d = createDecipheriv('aes-128-cbc', KEY, iv).setAutoPadding(false);
  return Buffer.concat([d.update(data), d.final()]);
}

function record(r: Reader): DeviceRecord {
  r.skip(4); // index, reserved
  const time = r.i64le() * 1000;
  const lat = r.f32le();
  const lng = r.f32le();
  const altitude = r.f32le();
  const speed = r.f32le();
  const course = r.f32le();
  r.skip(4 * 4 + 2); // geozone and IO events and values, operator
  const attributes = { [indexed.adc(1)]: r.u16le(), [indexed.adc(2)]: r.u16le(), [Attr.power]: r.u16le() / 1000 };
  r.skip(2); // cell id
  const rssi = r.u8();
  r.skip(1); // profile
  const battery = r.u8();
  const temp = r.u8(); // signed; 0x80: no sensor
  const satellites = r.u8();
  if (!(Math.abs(lat) <= 90 && Math.abs(lng) <= 180 && speed >= 0 && course >= 0 && course <= 360 && Number.isFinite(altitude))) throw new DecodeError('at2000: bad record');
  return { time, valid: true, lat, lng, altitude, speed, course, satellites, attributes: { ...attributes, [Attr.rssi]: rssi, [Attr.battery]: battery, ...(temp !== 0x80 ? { [indexed.temp(1)]: (temp << 24) >> 24 } : {}) } };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const session = ctx.session as Session;
  const codec = frame[0] === MSG_DEVICE_ID ? 1 : 0;
  const r = new Reader(frame, codec);
  const type = r.u8();
  r.skip(BLOCK - 1);
  if (type === MSG_DEVICE_ID) {
    const imei = r.ascii(15);
    if (!/^\d{15}$/.test(imei)) throw new DecodeError('at2000: bad IMEI');
    const iv = r.bytes(BLOCK);
    const first = r.bytes(BLOCK);
    decrypt(first, iv); // the first block only starts the chain
    session.iv = Buffer.from(first);
    const request = Buffer.alloc(BLOCK);
    request[0] = MSG_TRACK_REQUEST;
    return { deviceId: imei, reply: request };
  }
  if (type !== MSG_TRACK_RESPONSE || r.remaining === 0) return {};
  if (!session.iv) throw new DecodeError('at2000: track before the device id');
  const data = r.bytes(r.remaining - (r.remaining % BLOCK));
  if (!data.length) return {};
  const plain = decrypt(data, session.iv);
  session.iv = Buffer.from(data.subarray(data.length - BLOCK));
  const records: DeviceRecord[] = [];
  const p = new Reader(plain);
  while (p.remaining >= RECORD) records.push(record(p));
  return { records };
}

export const protocol: Protocol = {
  name: 'at2000',
  defaultPort: 5128,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
