/**
 * Queclink GL100 text reports: `+RESP:GT<type>,<IMEI>,<type fields>,` then one or more position
 * blocks `<fix (0 = fixed)>,<km/h>,<azimuth>,<altitude>,<accuracy>,<lng>,<lat>,<yyyyMMddHHmmss>,
 * <mcc>,<mnc>,<lac hex>,<cell hex>,<ta>`, then the send time or counter. GTSOS is an SOS alarm.
 * `AT+GTHBD=HeartBeat,<IMEI>,...` is the heartbeat. Messages end with `$`, NUL or a line break.
 */
import { Alarm, Attr } from './attributes.ts';
import {
  DecodeError,
  FrameError,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type Framer,
  type Protocol,
} from './types.ts';

const MAX_FRAME = 2048;
const ENDS = new Set([0x24, 0x00, 0x0d, 0x0a]);

function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && ENDS.has(buffer[start])) start++;
      for (let i = start; i < buffer.length; i++) if (ENDS.has(buffer[i])) return { frame: buffer.subarray(start, i), consumed: i + 1 };
      if (buffer.length - start > MAX_FRAME) throw new FrameError('gl100: message too long');
      return null;
    },
  };
}

const BLOCK = /(?:^|,)([01]),(\d+\.\d),(\d+),(-?\d+\.\d),(\d*),(-?\d+\.\d+),(-?\d+\.\d+),(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),(\d{4}),(\d{4}),([0-9a-fA-F]{4}),([0-9a-fA-F]{4}),(\d\d)(?=,|$)/g;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  const head = /^(?:\+RESP:GT(\w{3})|AT\+GTHBD=HeartBeat),(\d{6,20}),/.exec(s);
  if (!head) throw new DecodeError('gl100: unknown message');
  const [, type, imei] = head;
  if (!type) return { deviceId: imei };
  const records: DeviceRecord[] = [];
  for (const m of s.slice(head[0].length - 1).matchAll(BLOCK)) {
    if (records.length >= 64) break;
    const [, fix, speed, course, altitude, accuracy, lng, lat, y, mo, d, h, mi, se, mcc, mnc, lac, cid] = m;
    const rec: DeviceRecord = {
      time: Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(se)),
      valid: fix === '0',
      lat: Number(lat),
      lng: Number(lng),
      speed: Number(speed),
      course: Number(course) % 360,
      altitude: Number(altitude),
      cells: [{ mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16) }],
      attributes: { type },
    };
    if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('gl100: coordinates out of range');
    if (accuracy) rec.hdop = Number(accuracy);
    if (type === 'SOS') rec.attributes[Attr.alarm] = Alarm.sos;
    records.push(rec);
  }
  return { deviceId: imei, records };
}

export const protocol: Protocol = {
  name: 'gl100',
  defaultPort: 5003,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
  carriesText: false,
};
