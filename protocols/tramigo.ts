/**
 * Tramigo protocol (Tramigo T22/T23 trackers): binary frames of three kinds, by the first byte.
 *
 *   0x80  text report: version, serial (2), type (2), length (2, little-endian), mask, checksum,
 *         unit id (4), time (4, little-endian Unix seconds), then the human-readable report
 *         (`Tramigo: Moving, 0.12 km E of <place>, <lat>, <lng>, NW with speed 10 km/h, 00:49:08 Aug 9`).
 *         The record's time is the header's (UTC); the text's time of day is local time of an
 *         unknown zone. Answered with `gprs,ack,<serial>`.
 *   0x04  binary report (little-endian): length, checksum, serial, id (two numbers: 8 + 7 digits),
 *         time, then typed blocks (0: position and state, 1 landmark, 4 trip, 20 extended, 22 zone,
 *         30 system, 40 analog, 50 console, 255 ack). Answered with an acknowledgement block:
 *         `04, 24 (2), CRC-16/CCITT-FALSE (2), serial, id, id, time, FF, serial, 0000`.
 *   0x01  older binary position report (little-endian); no answer.
 */
import { Attr } from './attributes.ts';
import { Reader, crc16CcittFalse } from './binary.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MIN_FRAME = 20;
const MAX_FRAME = 0xffff;

function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < MIN_FRAME) return null;
      const kind = buffer[0];
      const length = kind === 0x80 ? buffer.readUInt16LE(6) : kind === 0x02 || kind === 0x04 ? buffer.readUInt16LE(1) : buffer.readUInt16BE(6);
      if (length < MIN_FRAME) throw new FrameError(`tramigo: bad length ${length}`);
      return buffer.length >= length ? { frame: buffer.subarray(0, length), consumed: length } : null;
    },
  };
}

// ---- 0x80: text reports -----------------------------------------------------------------------

const DIRECTIONS = ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'];
const COORDINATES = /(-?\d{1,3}\.\d+), (-?\d{1,3}\.\d+)/;
const DIRECTION = /([NSWE]{1,2}) with speed (\d+) km\/h/;

function decodeText(frame: Buffer): DecodeResult {
  const r = new Reader(frame, 2);
  const index = r.u16();
  r.skip(2 + 2 + 2 + 2); // type, length, mask, checksum
  const id = String(r.u32());
  const time = r.u32le() * 1000;
  const reply = Buffer.from(`gprs,ack,${index}`, 'latin1');
  const text = frame.toString('latin1', r.pos);
  const c = COORDINATES.exec(text);
  if (!c) return { deviceId: id, reply };
  const rec: DeviceRecord = { time, valid: true, lat: Number(c[1]), lng: Number(c[2]), attributes: { [Attr.index]: index } };
  if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('tramigo: coordinates out of range');
  const d = DIRECTION.exec(text);
  if (d && DIRECTIONS.includes(d[1])) {
    rec.course = DIRECTIONS.indexOf(d[1]) * 45;
    rec.speed = Number(d[2]);
  }
  if (text.includes('Ignition on detected')) rec.attributes[Attr.ignition] = true;
  else if (text.includes('Ignition off detected')) rec.attributes[Attr.ignition] = false;
  return { deviceId: id, records: [rec], reply };
}

// ---- 0x04: binary reports ---------------------------------------------------------------------

/** Fixed sizes of the blocks that carry nothing we read. */
const SKIP: Record<number, number> = { 4: 53, 20: 32, 30: 79, 40: 40, 255: 4 };

function positionBlock(r: Reader, rec: DeviceRecord): void {
  const a = rec.attributes;
  a[Attr.event] = r.u16le();
  r.skip(4); // event data
  const status = r.u16le();
  a[Attr.ignition] = (status & 0x20) !== 0;
  a[Attr.status] = status;
  rec.valid = true;
  rec.lat = r.i32le() / 1e5;
  rec.lng = r.i32le() / 1e5;
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('tramigo: coordinates out of range');
  rec.speed = r.u16le();
  rec.course = r.u16le() % 360;
  a[Attr.rssi] = r.u8();
  a.gps = r.u8();
  a[Attr.batteryLevel] = r.u8();
  a.tripOdometer = r.u16le();
  a.maxAcceleration = r.u16le() / 1000;
  a.maxDeceleration = r.u16le() / 1000;
  r.skip(2 + 4); // bearing and distance to the landmark
  rec.time = r.u32le() * 1000;
  r.skip(1);
}

function decodeBinary(frame: Buffer): DecodeResult {
  const r = new Reader(frame, 1);
  r.skip(4); // length, checksum
  const index = r.u16le();
  const id1 = r.u32le();
  const id2 = r.u32le();
  const time = r.u32le();
  const id = `${String(id1).padStart(8, '0')}${String(id2).padStart(7, '0')}`;
  const reply = Buffer.alloc(24);
  reply[0] = 0x04;
  reply.writeUInt16LE(24, 1);
  reply.writeUInt16LE(index, 5);
  reply.writeUInt32LE(id1, 7);
  reply.writeUInt32LE(id2, 11);
  reply.writeUInt32LE(time, 15);
  reply[19] = 0xff;
  reply.writeUInt16LE(index, 20);
  reply.writeUInt16LE(crc16CcittFalse(reply), 3);

  const rec: DeviceRecord = { attributes: { [Attr.index]: index } };
  while (r.remaining) {
    const type = r.u8();
    if (type === 0) positionBlock(r, rec);
    else if (type === 1 || type === 50) r.skip(r.u16le() - 3);
    else if (type === 22) r.skip(1).skip(r.u16le());
    else if (SKIP[type] !== undefined) r.skip(SKIP[type]);
    else throw new DecodeError(`tramigo: unknown block ${type}`);
  }
  if (!rec.valid) return { deviceId: id, reply };
  rec.time ??= time * 1000;
  return { deviceId: id, records: [rec], reply };
}

// ---- 0x01: older binary position --------------------------------------------------------------

function decodeOld(frame: Buffer): DecodeResult {
  const r = new Reader(frame, 2);
  const index = r.u16le();
  const type = r.u16le();
  if (type !== 0x0100 && type !== 0x00fe) return {};
  r.skip(6); // length, mask, checksum
  const id = String(r.u32le());
  r.skip(4 + 2 + 2); // time, report trigger, state flags
  const rec: DeviceRecord = { valid: true, lat: r.i32le() / 1e7, lng: r.i32le() / 1e7, attributes: { [Attr.index]: index } };
  if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('tramigo: coordinates out of range');
  const a = rec.attributes;
  a[Attr.rssi] = r.u16le();
  rec.satellites = r.u16le();
  a.satVisible = r.u16le();
  a.gpsAntennaStatus = r.u16le();
  rec.speed = r.u16le() * 0.36; // 0.1 m/s
  rec.course = r.u16le() % 360;
  a[Attr.odometer] = r.u32le();
  a[Attr.battery] = r.u16le();
  a[Attr.charge] = r.u16le();
  rec.time = r.u32le() * 1000;
  return { deviceId: id, records: [rec] };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  switch (frame[0]) {
    case 0x80:
      return decodeText(frame);
    case 0x04:
      return decodeBinary(frame);
    case 0x01:
      return decodeOld(frame);
    default:
      return {};
  }
}

export const protocol: Protocol = {
  name: 'tramigo',
  defaultPort: 5073,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  carriesText: false,
};
