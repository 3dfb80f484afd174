/**
 * OBD dongle (MQTT-like binary over TCP): 0x5555, index (u16), IMEI (15 ASCII), type (u8), data length
 * (u16), data, checksum (u8), 0xAAAA. Types: 0x01 connect (answered with connack 0x02: accepted),
 * 0x03 publish (answered with puback 0x04 echoing the data type). A publish carries: major and minor
 * type, event, time (u32 s), flags (bits 0..3 satellites, 4 north, 5 east, 6 not valid), longitude
 * (17 bits as 1 + 24, 1e-5 degree), latitude (u24, 1e-5 degree), speed (0.1 mph, bits 10..23) and
 * course (bits 0..9).
 */
import { Reader } from './binary.ts';
import { lengthFieldFramer } from './framers.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const MSG_CONNECT = 0x01;
const MSG_CONNACK = 0x02;
const MSG_PUBLISH = 0x03;
const MSG_PUBACK = 0x04;

/** A message of the server: the device's index and IMEI echoed, checksum left 0 as the devices accept. */
function message(type: number, index: number, imei: string, content: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(0x5555, 0);
  head.writeUInt16BE(index, 2);
  const mid = Buffer.alloc(3);
  mid[0] = type;
  mid.writeUInt16BE(content.length, 1);
  return Buffer.concat([head, Buffer.from(imei, 'latin1'), mid, content, Buffer.from([0x00, 0xaa, 0xaa])]);
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 2);
  const index = r.u16();
  const imei = r.ascii(15);
  if (!/^\d{15}$/.test(imei)) throw new DecodeError('obddongle: bad IMEI');
  const type = r.u8();
  r.skip(2); // data length (not always right in captured data)
  if (type === MSG_CONNECT) return { deviceId: imei, reply: message(MSG_CONNACK, index, imei, Buffer.from([1, 0, 0, 0, 0, 0, 0])) };
  if (type !== MSG_PUBLISH) return { deviceId: imei };
  const [major, minor] = [r.u8(), r.u8()];
  r.skip(1); // event id
  const time = r.u32() * 1000;
  const flags = r.u8();
  const lng = (((r.u16() & 1) << 24) + r.u24()) / 1e5;
  const lat = r.u24() / 1e5;
  const speedCourse = r.u24();
  if (lat > 90 || lng > 180) throw new DecodeError('obddongle: coordinates out of range');
  return {
    deviceId: imei,
    records: [
      {
        time,
        valid: (flags & 0x40) === 0,
        satellites: flags & 0x0f,
        lat: flags & 0x10 ? lat : -lat,
        lng: flags & 0x20 ? lng : -lng,
        speed: ((speedCourse >> 10) / 10) * 1.609344,
        course: (speedCourse & 0x3ff) % 360,
        attributes: {},
      },
    ],
    reply: message(MSG_PUBACK, index, imei, Buffer.from([major, minor])),
  };
}

export const protocol: Protocol = {
  name: 'obddongle',
  defaultPort: 5115,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => lengthFieldFramer('obddongle', { offset: 20, size: 2, adjust: 25, magic: Buffer.from([0x55, 0x55]) }, MAX_FRAME),
  decode,
  commands: [],
};
