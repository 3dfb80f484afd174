/**
 * Noran (NR0x) UDP protocol, little-endian: length (u16), type (u16), then the body.
 *   0x0000 hand shake, carrying the device id: answered with a hand-shake response (0x8000, status 1)
 *   0x0008 position, 0x0032 position with temperature and odometer, 0x0003 alarm, 0x8009 command answer
 *     older layout: valid bit, alarm, speed (u8 km/h), course (u16), longitude, latitude (f32),
 *       time (u32 bit fields yy|MM|dd|HH|mm|ss), id (11 bytes), IO byte, fuel %, [temperature i16, odometer f32]
 *     newer layout (a 48-byte body, 57 for command answers): valid bit, alarm, speed (u32 km/h),
 *       course (f32), longitude, latitude, id (12 bytes), time `yy-MM-dd HH:mm:ss`
 * Commands are `*KW,000,<code>,000000[,<arg>]#` texts in a 68-byte control frame (0x0002).
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { utc } from './text.ts';
import { DecodeError, type AttrValue, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MSG_SHAKE_HAND = 0x0000;
const MSG_CONTROL = 0x0002;
const MSG_ALARM = 0x0003;
const MSG_POSITION = 0x0008;
const MSG_POSITION_NEW = 0x0032;
const MSG_CONTROL_RESPONSE = 0x8009;
const MSG_SHAKE_HAND_RESPONSE = 0x8000;
const HEAD = Buffer.from('\r\n*KW\0', 'latin1');
const CRLF = Buffer.from('\r\n', 'latin1');

const ALARMS: Record<number, string> = { 1: Alarm.sos, 2: Alarm.overspeed, 3: Alarm.geofenceExit, 9: Alarm.powerOff };

/** A frame of the server: `\r\n*KW\0`, total length, type, body, `\r\n`. */
function serverFrame(type: number, body: Buffer): Buffer {
  const length = HEAD.length + 4 + body.length + CRLF.length;
  const head = Buffer.alloc(4);
  head.writeUInt16LE(length, 0);
  head.writeUInt16LE(type, 2);
  return Buffer.concat([HEAD, head, body, CRLF]);
}

const printable = (b: Buffer) => b.toString('latin1').replace(/[^\x20-\x7e]/g, '');

function position(r: Reader, type: number): { id: string; rec: DeviceRecord } {
  const body = r.remaining;
  const newer = ((type === MSG_POSITION || type === MSG_ALARM) && body === 48) || (type === MSG_CONTROL_RESPONSE && body === 57);
  if (type === MSG_CONTROL_RESPONSE) r.skip(8); // GIS address and port
  const valid = (r.u8() & 1) !== 0;
  const a: Record<string, AttrValue> = {};
  const alarm = ALARMS[r.u8()];
  if (alarm) a[Attr.alarm] = alarm;
  const speed = newer ? r.u32le() : r.u8();
  const course = newer ? r.f32le() : r.u16le();
  const lng = r.f32le();
  const lat = r.f32le();
  if (!(Math.abs(lat) <= 90 && Math.abs(lng) <= 180 && course >= 0 && course <= 360)) throw new DecodeError('noran: position out of range');
  let time: number;
  let id: string;
  if (newer) {
    id = printable(r.bytes(12));
    const m = /^(\d\d)-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)$/.exec(r.ascii(17));
    if (!m) throw new DecodeError('noran: bad time');
    time = utc(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  } else {
    const t = r.u32le();
    time = utc(t >>> 26, (t >>> 22) & 0x0f, (t >>> 17) & 0x1f, (t >>> 12) & 0x1f, (t >>> 6) & 0x3f, t & 0x3f);
    id = printable(r.bytes(11));
    if (r.remaining >= 2) {
      a[indexed.io(1)] = r.u8();
      a[Attr.fuelLevel] = r.u8();
    }
    if (r.remaining >= 6) {
      const temp = r.i16le();
      if (temp > -255) a[indexed.temp(1)] = temp; // -255 (0xff01): no sensor
      a[Attr.odometer] = r.f32le();
    }
  }
  return { id, rec: { time, valid, lat, lng, speed, course, attributes: a } };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  r.skip(2); // length
  const type = r.u16le();
  if (type === MSG_SHAKE_HAND) {
    const id = printable(r.bytes(r.remaining));
    return { ...(id ? { deviceId: id } : {}), reply: serverFrame(MSG_SHAKE_HAND_RESPONSE, Buffer.from([1])) };
  }
  if (type !== MSG_POSITION && type !== MSG_POSITION_NEW && type !== MSG_ALARM && type !== MSG_CONTROL_RESPONSE) return {};
  const { id, rec } = position(r, type);
  return id ? { deviceId: id, records: [rec] } : {};
}

const CODES: Record<string, (c: Command) => string> = {
  positionSingle: () => '000,000000',
  positionPeriodic: (c) => `002,000000,${Math.trunc(Number(c.attributes.frequency ?? 0))}`,
  positionStop: () => '002,000000,0',
  engineStop: () => '007,000000,0',
  engineResume: () => '007,000000,1',
};

/** The command text in a control frame: GIS address and port zero, text padded to 50 bytes. */
function encode(command: Command): Buffer {
  const code = CODES[command.type];
  if (!code) throw new Error(`noran: unsupported command ${command.type}`);
  const body = Buffer.alloc(6 + 50);
  body.write(`*KW,000,${code(command)}#`, 6, 50, 'latin1');
  return serverFrame(MSG_CONTROL, body);
}

export const protocol: Protocol = {
  name: 'noran',
  defaultPort: 5053,
  transports: ['udp'],
  maxFrameSize: 1024,
  decode,
  commands: Object.keys(CODES),
  encode,
};
