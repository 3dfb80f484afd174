/**
 * CityEasy binary-framed protocol: `TT | u16 frame length | 7-byte IMEI (BCD, 14 digits) | u16 type | body |
 * u32 | u16 CRC-16/KERMIT | CR LF`. Types: 0x0003 location report, 0x0004 answer to a location request
 * (both an ASCII body `[yyyymmddhhmmss,A|V,<satellites>,N|S,<lat>,E|W,<lon>,<km/h>,<hdop>,<altitude>];<mcc>,<mnc>,<lac>,<cid>,...`),
 * 0x0002 status and others (nothing kept). The device is known by its IMEI with the Luhn digit.
 * Commands go out as `SS | u16 length | u16 type | content | u32 0x0B | u16 CRC-16/KERMIT | CR LF`.
 * The devices expect no answer to reports.
 */
import { crc16Kermit, Reader } from './binary.ts';
import { lengthFieldFramer } from './framers.ts';
import { luhnDigit, utc, zoneOffsetMinutes } from './text.ts';
import { DecodeError, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const MSG_LOCATION_REPORT = 0x0003;
const MSG_LOCATION_REQUEST = 0x0004;
const MSG_LOCATION_INTERVAL = 0x0005;
const MSG_TIMEZONE = 0x0008;
const LOCATION =
  /^(?:(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),([AV]),(\d+),([NS]),(\d+\.\d+),([EW]),(\d+\.\d+),(\d+\.\d),(\d+\.\d),(\d+\.\d))?;(\d+),(\d+),(\d+),(\d+)/;

function decodeLocation(text: string): DeviceRecord | undefined {
  const m = LOCATION.exec(text);
  if (!m) return undefined;
  const [, yy, mo, dd, hh, mi, ss, valid, sats, ns, lat, ew, lng, speed, hdop, altitude, mcc, mnc, lac, cid] = m;
  const rec: DeviceRecord = { cells: [{ mcc: +mcc, mnc: +mnc, lac: +lac, cid: +cid }], attributes: {} };
  if (yy) {
    Object.assign(rec, {
      time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
      valid: valid === 'A',
      satellites: Number(sats),
      lat: Number(lat) * (ns === 'S' ? -1 : 1),
      lng: Number(lng) * (ew === 'W' ? -1 : 1),
      speed: Number(speed),
      hdop: Number(hdop),
      altitude: Number(altitude),
    });
    if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('cityeasy: coordinates out of range');
  }
  return rec;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  r.skip(4); // TT, length
  const imei = r.hex(7);
  if (!/^\d{14}$/.test(imei)) throw new DecodeError('cityeasy: bad IMEI');
  const deviceId = imei + luhnDigit(imei);
  const type = r.u16();
  if (type !== MSG_LOCATION_REPORT && type !== MSG_LOCATION_REQUEST) return { deviceId };
  const rec = decodeLocation(frame.toString('latin1', r.pos, Math.max(r.pos, frame.length - 8)));
  if (rec) rec.time ??= ctx.now;
  return { deviceId, records: rec ? [rec] : [] };
}

function frame(type: number, content: Buffer): Buffer {
  const b = Buffer.alloc(2 + 2 + 2 + content.length + 4 + 2 + 2);
  b.write('SS', 0, 'latin1');
  b.writeUInt16BE(b.length, 2);
  b.writeUInt16BE(type, 4);
  content.copy(b, 6);
  let o = 6 + content.length;
  o = b.writeUInt32BE(0x0b, o);
  o = b.writeUInt16BE(crc16Kermit(b, 0, o), o);
  b.write('\r\n', o, 'latin1');
  return b;
}

const u16 = (v: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(Math.max(0, Math.min(0xffff, Math.round(v))));
  return b;
};

const COMMANDS: Record<string, (c: Command) => Buffer> = {
  positionSingle: () => frame(MSG_LOCATION_REQUEST, Buffer.alloc(0)),
  positionPeriodic: (c) => frame(MSG_LOCATION_INTERVAL, u16(Number(c.attributes.frequency ?? 0))),
  positionStop: () => frame(MSG_LOCATION_INTERVAL, u16(0)),
  setTimezone: (c) => {
    const minutes = zoneOffsetMinutes(c.attributes.timezone);
    return frame(MSG_TIMEZONE, Buffer.concat([Buffer.of(minutes < 0 ? 1 : 0), u16(Math.abs(minutes))]));
  },
};

function encode(command: Command): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`cityeasy: unsupported command ${command.type}`);
  return build(command);
}

export const protocol: Protocol = {
  name: 'cityeasy',
  defaultPort: 5088,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  // the u16 at offset 2 is the length of the whole frame
  createFramer: () => lengthFieldFramer('cityeasy', { offset: 2, size: 2, adjust: -4 }, MAX_FRAME),
  decode,
  commands: Object.keys(COMMANDS),
  encode,
};
