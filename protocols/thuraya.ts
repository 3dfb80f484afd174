/**
 * Thuraya satellite trackers (big-endian): `#T`, frame length (u16, the whole frame), message type
 * (u16), device id (u32), body, checksum (u16: the two's complement of the byte sum of the rest).
 *   0x5101 event: a location, event code, event text       0x7101 periodic: count, locations
 *   a location: date yyyyMMdd and time HHmmss as decimal u32s, longitude and latitude (1e-6 degrees,
 *   i32), a word (high 4 bits: 1 ignition on, 2 off; low 12 bits course), speed (km/h), rpm, text
 *   terminated by a zero byte. Every message is answered with an 0x9901 acknowledgement naming its type.
 */
import { Alarm, Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { lengthFieldFramer } from './framers.ts';
import { utc } from './text.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const MSG_EVENT = 0x5101;
const MSG_PERIODIC = 0x7101;
const MSG_ACK = 0x9901;
const EVENT_ALARMS: Record<number, string> = {
  10: Alarm.vibration,
  11: Alarm.overspeed,
  12: Alarm.powerCut,
  13: Alarm.lowBattery,
  18: Alarm.gpsAntennaCut,
  20: Alarm.hardAcceleration,
  21: Alarm.hardBraking,
};

function checksum(b: Buffer, end: number): number {
  let sum = 0;
  for (let i = 0; i < end; i++) sum += b[i];
  return -sum & 0xffff;
}

function acknowledge(id: number, type: number): Buffer {
  const b = Buffer.alloc(16);
  b.write('#T', 0, 'latin1');
  b.writeUInt16BE(15, 2);
  b.writeUInt16BE(MSG_ACK, 4);
  b.writeUInt32BE(id, 6);
  b.writeUInt16BE(type, 10);
  b.writeUInt16BE(1, 12); // server OK
  b.writeUInt16BE(checksum(b, 14), 14);
  return b;
}

function text(r: Reader): string {
  const end = r.buf.indexOf(0, r.pos);
  if (end < 0 || end >= r.end) throw new DecodeError('thuraya: unterminated text');
  const s = r.ascii(end - r.pos);
  r.skip(1);
  return s;
}

function location(r: Reader): DeviceRecord {
  const date = r.u32();
  const time = r.u32();
  const lng = r.i32() / 1e6;
  const lat = r.i32() / 1e6;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('thuraya: coordinates out of range');
  const word = r.u16();
  const a: Record<string, AttrValue> = {};
  if (word >> 12 === 1) a[Attr.ignition] = true;
  else if (word >> 12 === 2) a[Attr.ignition] = false;
  const speed = Math.max(0, r.i16());
  a[Attr.rpm] = r.i16();
  const data = text(r);
  if (data) a.data = data;
  const day = Math.floor(date / 10000);
  return {
    time: utc(day, Math.floor(date / 100) % 100, date % 100, Math.floor(time / 10000), Math.floor(time / 100) % 100, time % 100),
    valid: true,
    lat,
    lng,
    course: (word & 0xfff) % 360,
    speed,
    attributes: a,
  };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (frame[0] !== 0x23 || frame[1] !== 0x54) throw new DecodeError('thuraya: not a frame');
  const r = new Reader(frame, 4, frame.length - 2);
  const type = r.u16();
  const id = r.u32();
  const deviceId = String(id);
  const reply = acknowledge(id, type);
  if (type === MSG_EVENT) {
    const rec = location(r);
    const event = r.u8();
    rec.attributes[Attr.event] = event;
    if (EVENT_ALARMS[event]) rec.attributes[Attr.alarm] = EVENT_ALARMS[event];
    const eventData = text(r);
    if (eventData) rec.attributes.eventData = eventData;
    return { deviceId, records: [rec], reply };
  }
  if (type === MSG_PERIODIC) {
    const count = r.u8();
    const records: DeviceRecord[] = [];
    for (let i = 0; i < count; i++) records.push(location(r));
    return { deviceId, records, reply };
  }
  return { deviceId, reply };
}

export const protocol: Protocol = {
  name: 'thuraya',
  defaultPort: 5242,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => lengthFieldFramer('thuraya', { offset: 2, size: 2, adjust: -4, magic: Buffer.from('#T') }, MAX_FRAME),
  decode,
  commands: [],
};
