/**
 * RoboTrack binary protocol (little-endian), the message type first:
 *   0x00 identification: name (16), IMEI (15 ASCII), versions; answered `80 01 66`
 *   0x03 GPS: time (u32 s), latitude and longitude (i32, 1e-6 degree), speed (km/h)
 *   0x04 GSM: time, MCC, MNC, LAC, cell id (u16 each), reserved
 *   then both: satellites (bits 0..3) / GSM (4..6) / moving (7), external power (bit 0), inputs 1..4
 *   (bits 1..4), battery (bits 5..7, of 7), temperature, three analog inputs (u16), checksum
 * Messages have a fixed size by type; images (0x06..0x08) are not supported.
 */
import { Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MSG_ID = 0x00;
const MSG_GPS = 0x03;
const MSG_GSM = 0x04;
const SIZES: Record<number, number> = { [MSG_ID]: 69, [MSG_GPS]: 24, [MSG_GSM]: 24 };
const ACK = Buffer.from([0x80, 0x01, 0x66]);

function createFramer(): Framer {
  return {
    next(buffer) {
      if (!buffer.length) return null;
      const size = SIZES[buffer[0]];
      if (!size) throw new FrameError(`robotrack: unsupported message type ${buffer[0]}`);
      return buffer.length < size ? null : { frame: buffer.subarray(0, size), consumed: size };
    },
  };
}

function common(r: Reader, rec: DeviceRecord): void {
  const a = rec.attributes;
  let v = r.u8();
  rec.satellites = v & 0x0f;
  a[Attr.rssi] = (v >> 4) & 0x07;
  a[Attr.motion] = (v & 0x80) !== 0;
  v = r.u8();
  a[Attr.charge] = (v & 1) !== 0;
  for (let i = 1; i <= 4; i++) a[indexed.in(i)] = (v & (1 << i)) !== 0;
  a[Attr.batteryLevel] = Math.floor(((v >> 5) * 100) / 7);
  a[Attr.deviceTemp] = r.i8();
  for (let i = 1; i <= 3; i++) a[indexed.adc(i)] = r.u16le();
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  const type = r.u8();
  if (type === MSG_ID) {
    r.skip(16);
    const imei = r.ascii(15);
    if (!/^\d{15}$/.test(imei)) throw new DecodeError('robotrack: bad IMEI');
    return { deviceId: imei, reply: ACK };
  }
  if (type !== MSG_GPS && type !== MSG_GSM) return {};
  const session = ctx.session as { last?: LastFix };
  const time = r.u32le() * 1000;
  let rec: DeviceRecord;
  if (type === MSG_GPS) {
    const [lat, lng] = [r.i32le() / 1e6, r.i32le() / 1e6];
    if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('robotrack: coordinates out of range');
    rec = { time, valid: true, lat, lng, speed: Math.max(0, r.i8()), attributes: {} };
  } else {
    rec = { time, cells: [{ mcc: r.u16le(), mnc: r.u16le(), lac: r.u16le(), cid: r.u16le() }], attributes: {} };
    r.skip(1);
  }
  common(r, rec);
  if (type === MSG_GPS) rememberFix(session, rec);
  else withLastFix(rec, session);
  return { records: [rec] };
}

export const protocol: Protocol = {
  name: 'robotrack',
  defaultPort: 5163,
  transports: ['tcp'],
  maxFrameSize: 69,
  createFramer,
  decode,
  commands: [],
};
