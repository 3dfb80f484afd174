/**
 * GT02 protocol (Concox GT02 and its clones): `68 68 <length> <power> <gsm> <IMEI (8 bytes BCD)>
 * <serial (2)> <type> <content> 0D 0A`; the length counts from the power byte to the content.
 *
 *   0x10 data: date yy mm dd hh mm ss, latitude and longitude (u32, 1/30000 minute), speed (km/h),
 *        course (2), 3 reserved, flags (4: bit 0 valid, bit 1 north, bit 2 east)
 *   0x1A heartbeat: power level and GSM signal in the header
 *   0x1C command answer: length-prefixed text
 * Reply: the heartbeat is answered `54 68 1A 0D 0A`; data and answers need none.
 */
import { Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 255 + 5;
const MSG = { data: 0x10, heartbeat: 0x1a, response: 0x1c } as const;
const HEARTBEAT_REPLY = Buffer.from([0x54, 0x68, 0x1a, 0x0d, 0x0a]);

function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 3) return null;
      if (buffer[0] !== 0x68 || buffer[1] !== 0x68) throw new FrameError('gt02: no 68 68 header');
      const length = buffer[2] + 5;
      return buffer.length >= length ? { frame: buffer.subarray(0, length), consumed: length } : null;
    },
  };
}

interface Session {
  last?: LastFix;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 3, Math.max(3, frame.length - 2));
  if (frame[0] !== 0x68 || frame[1] !== 0x68) throw new DecodeError('gt02: no 68 68 header');
  const power = r.u8();
  const gsm = r.u8();
  const imei = r.hex(8).slice(1);
  const rec: DeviceRecord = { attributes: { [Attr.index]: r.u16() } };
  const type = r.u8();
  const session = ctx.session as Session;
  if (type === MSG.heartbeat) {
    Object.assign(rec.attributes, { [Attr.power]: power, [Attr.rssi]: gsm });
    return { deviceId: imei, records: [withLastFix(rec, session)], reply: HEARTBEAT_REPLY };
  }
  if (type === MSG.response) {
    rec.attributes[Attr.result] = r.ascii(r.u8());
    return { deviceId: imei, records: [withLastFix(rec, session)] };
  }
  if (type !== MSG.data) return { deviceId: imei };
  const [yy, mo, dd, hh, mi, ss] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  rec.time = Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss);
  const lat = r.u32() / 60 / 30000;
  const lng = r.u32() / 60 / 30000;
  rec.speed = r.u8();
  rec.course = r.u16();
  r.skip(3);
  const flags = r.u32();
  rec.valid = (flags & 1) !== 0;
  rec.lat = flags & 2 ? lat : -lat;
  rec.lng = flags & 4 ? lng : -lng;
  if (lat > 90 || lng > 180 || rec.course > 360) throw new DecodeError('gt02: position out of range');
  rememberFix(session, rec);
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'gt02',
  defaultPort: 5022,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  carriesText: false,
};
