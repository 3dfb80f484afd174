/**
 * Xexun (newer binary protocol, "xexun2").
 *
 * Frame: `FA AF | type u16 | index u16 | IMEI (8 bytes BCD, 15 digits and a pad) | attributes u16 (low 10
 * bits: payload length) | checksum u16 | payload | FA AF`, big-endian. The checksum is the one's complement
 * of the sum of the payload bytes. On the wire `FA AF` inside a frame is escaped `FB BF 01` and `FB BF`
 * is `FB BF 02`; the framer undoes that.
 * Position payload (type 0x14): `count | length u16 × count | records`; a record is `index | time u32 |
 * rssi | battery u16 (bit 15 charging, low bits percent) | mask` followed by what the mask announces:
 * bit 0 alarm word, bit 1 location block (GNSS as floats, Wi-Fi, cells, distance measurements, speed and
 * course, GNSS as doubles, typed extension `G`), bit 3 fingerprint, bit 4 versions, bit 5 parameters.
 * Coordinates are NMEA-style `dddmm.mmmm` numbers. Every message but a command is answered with the same
 * header and a one-byte payload `01`. Commands (type 0x07) carry text.
 */
import { Alarm, Attr } from './attributes.ts';
import { Reader, nmeaDegrees } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { macColons, wifiAttribute } from './text.ts';
import { DecodeError, FrameError, type Cell, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const COMMAND = 0x07;
const POSITION = 0x14;
const HEADER = 18; // flag, type, index, IMEI, attributes, checksum

/** Cuts from one `FA AF` to the next, un-escaping on the way. */
function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length >= 2 && (buffer[0] !== 0xfa || buffer[1] !== 0xaf)) throw new FrameError('xexun2: no start flag');
      if (buffer.length < 5) return null;
      let end = -1;
      for (let i = 2; i + 1 < buffer.length; i++) {
        if (buffer[i] === 0xfa && buffer[i + 1] === 0xaf) {
          end = i + 2;
          break;
        }
      }
      if (end < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('xexun2: no end flag');
        return null;
      }
      const out = Buffer.alloc(end);
      let n = 0;
      for (let i = 0; i < end; i++) {
        if (buffer[i] === 0xfb && buffer[i + 1] === 0xbf && i + 2 < end) {
          const ext = buffer[i + 2];
          if (ext === 0x01) (out[n++] = 0xfa), (out[n++] = 0xaf);
          else if (ext === 0x02) (out[n++] = 0xfb), (out[n++] = 0xbf);
          i += 2;
        } else out[n++] = buffer[i];
      }
      return { frame: out.subarray(0, n), consumed: end };
    },
  };
}

/** One's complement of the byte sum, carries folded into 16 bits. */
export function checksum(b: Uint8Array, start = 0, end = b.length): number {
  let s = 0;
  for (let i = start; i < end; i++) s += b[i];
  while (s > 0xffff) s = (s & 0xffff) + (s >>> 16);
  return s === 0xffff ? s : ~s & 0xffff;
}

function message(type: number, index: number, imei: Buffer, payload: Buffer): Buffer {
  const out = Buffer.alloc(HEADER + payload.length + 2);
  out.writeUInt16BE(0xfaaf, 0);
  out.writeUInt16BE(type, 2);
  out.writeUInt16BE(index, 4);
  imei.copy(out, 6, 0, 8);
  out.writeUInt16BE(payload.length, 14);
  out.writeUInt16BE(checksum(payload), 16);
  payload.copy(out, HEADER);
  out.writeUInt16BE(0xfaaf, out.length - 2);
  return out;
}

/** Alarm word: bit 0 SOS, bit 1 removed from the wrist, bit 15 fall. */
function alarm(word: number): string | undefined {
  if (word & 0x01) return Alarm.sos;
  if (word & 0x02) return Alarm.removing;
  if (word & 0x8000) return Alarm.fallDown;
  return undefined;
}

const degrees = (v: number) => (v < 0 ? -nmeaDegrees(-v) : nmeaDegrees(v));

function setFix(rec: DeviceRecord, sats: number, lng: number, lat: number): void {
  const la = degrees(lat);
  const lo = degrees(lng);
  if (!(Math.abs(la) <= 90 && Math.abs(lo) <= 180)) return;
  Object.assign(rec, { valid: true, satellites: sats, lat: la, lng: lo });
}

function decodeLocation(r: Reader, rec: DeviceRecord): void {
  const mask = r.u8();
  if (mask & 0x01) setFix(rec, r.u8(), r.f32(), r.f32());
  if (mask & 0x02) {
    const points: Array<{ mac: string; rssi: number }> = [];
    for (let n = r.u8(); n > 0; n--) points.push({ mac: macColons(r.hex(6)), rssi: r.i8() });
    if (points.length) rec.attributes.wifi = wifiAttribute(points);
  }
  if (mask & 0x04) {
    const cells: Cell[] = [];
    for (let n = r.u8(); n > 0; n--) cells.push({ mcc: r.u16(), mnc: r.u16(), lac: r.i32(), cid: r.u32(), rssi: r.i8() });
    if (cells.length) rec.cells = cells;
  }
  if (mask & 0x08) r.skip(12 * r.u8()); // distance measurements
  if (mask & 0x20) {
    rec.speed = r.u16() / 10;
    rec.course = (r.u16() / 10) % 360;
  }
  if (mask & 0x40) setFix(rec, r.u8(), r.f64(), r.f64());
  if (mask & 0x80) {
    const length = r.u16();
    if (length > 0) {
      const type = r.u8();
      const data = new Reader(r.bytes(r.u16()));
      if (type === 0x47) {
        // 'G': GNSS with validity, speed, course and altitude
        const lng = data.f64();
        const lat = data.f64();
        const valid = data.u8() > 0;
        const sats = data.u8();
        data.skip(1); // signal-to-noise ratio
        setFix(rec, sats, lng, lat);
        if (rec.lat !== undefined) rec.valid = valid;
        rec.speed = data.u16() / 10;
        rec.course = (data.u16() / 10) % 360;
        const altitude = data.f32();
        if (Number.isFinite(altitude) && Math.abs(altitude) < 20000) rec.altitude = altitude;
      }
    }
  }
}

interface Session {
  last?: LastFix;
}

function decodePositions(r: Reader, session: Session): DeviceRecord[] {
  const lengths: number[] = [];
  for (let n = r.u8(); n > 0; n--) lengths.push(r.u16());
  const records: DeviceRecord[] = [];
  for (const length of lengths) {
    const body = new Reader(r.bytes(length));
    const a: DeviceRecord['attributes'] = {};
    const rec: DeviceRecord = { attributes: a };
    a[Attr.index] = body.u8();
    rec.time = body.u32() * 1000;
    a[Attr.rssi] = body.u8();
    const battery = body.u16();
    a[Attr.charge] = (battery & 0x8000) !== 0;
    a[Attr.batteryLevel] = battery & 0x7fff;
    const mask = body.u8();
    if (mask & 0x01) {
      const name = alarm(body.u32());
      if (name) a[Attr.alarm] = name;
    }
    if (mask & 0x02) decodeLocation(body, rec);
    // bits 3..5 (fingerprint, versions, parameters) are not decoded
    if (rec.lat !== undefined) rememberFix(session, rec);
    else {
      withLastFix(rec, session);
      // nothing known yet: a not-valid fix at 0,0 (the telemetry filter drops not-valid fixes)
      if (rec.lat === undefined) Object.assign(rec, { lat: 0, lng: 0, valid: false });
    }
    records.push(rec);
  }
  return records;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length < HEADER + 2 || frame.readUInt16BE(0) !== 0xfaaf) throw new DecodeError('xexun2: no start flag');
  const type = frame.readUInt16BE(2);
  const index = frame.readUInt16BE(4);
  const imei = frame.subarray(6, 14);
  const deviceId = imei.toString('hex').slice(0, 15);
  if (!/^\d{15}$/.test(deviceId)) throw new DecodeError('xexun2: bad IMEI');
  const size = frame.readUInt16BE(14) & 0x03ff;
  if (HEADER + size > frame.length) throw new DecodeError('xexun2: payload past the end');
  if (checksum(frame, HEADER, HEADER + size) !== frame.readUInt16BE(16)) throw new DecodeError('xexun2: bad checksum');
  const reply = type === COMMAND ? undefined : escape(message(type, index, imei, Buffer.of(0x01)));
  if (type !== POSITION) return { deviceId, reply };
  const records = decodePositions(new Reader(frame, HEADER, HEADER + size), ctx.session as Session);
  return { deviceId, records, reply };
}

// ---- commands ---------------------------------------------------------------------------------

const COMMANDS: Record<string, (a: Command['attributes']) => string> = {
  custom: (a) => String(a.data ?? ''),
  positionPeriodic: (a) => `tracking_send=${Number(a.frequency ?? 0)},${Number(a.frequency ?? 0)}`,
  powerOff: () => 'of=1',
  rebootDevice: () => 'reset',
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`xexun2: unsupported command ${command.type}`);
  if (!/^\d{15}$/.test(ctx.deviceId)) throw new Error('xexun2: the device identifier must be an IMEI');
  const text = Buffer.from(build(command.attributes), 'latin1');
  if (text.length > 0x3ff) throw new Error('xexun2: command text too long');
  const out = message(COMMAND, 1, Buffer.from(`${ctx.deviceId}0`, 'hex'), text);
  return escape(out);
}

/** Escape `FA AF` and `FB BF` between the flags. */
function escape(frame: Buffer): Buffer {
  const out: number[] = [0xfa, 0xaf];
  for (let i = 2; i < frame.length - 2; i++) {
    if (frame[i] === 0xfa && frame[i + 1] === 0xaf && i + 1 < frame.length - 2) {
      out.push(0xfb, 0xbf, 0x01);
      i++;
    } else if (frame[i] === 0xfb && frame[i + 1] === 0xbf && i + 1 < frame.length - 2) {
      out.push(0xfb, 0xbf, 0x02);
      i++;
    } else out.push(frame[i]);
  }
  out.push(0xfa, 0xaf);
  return Buffer.from(out);
}

export const protocol: Protocol = {
  name: 'xexun2',
  defaultPort: 5233,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  carriesText: false,
  encode,
};
