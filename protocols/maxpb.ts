/**
 * MaxPB binary protocol: `55 AA 55 AA | u16 size (bytes after this field) | u16 CRC | u16 type | u16 format`
 * (little-endian), then a protobuf body when the format is 0.
 * Type 1 is a position message `{1 device id, 2 packet id, 3 {1 IMEI}, 4 new report, 5 older reports}`, a
 * report being `{1 sequence, 2 reason, 3 unix time, 4 position {3 lat, 4 lon (sfixed32, 1e-7 degrees),
 * 5 altitude (sint32 m), 6 position error m, 7 direction}, 5 GPS {2 fix state (2+ valid), 3 satellites,
 * 5 HDOP ×10}, 6 IO {1 ignition}, 7 flags {1 device {2 supply mV, 4 battery %, 5 battery mV}}}`; reports
 * without a position are skipped. Type 0x11 (status) and type 2 (acknowledgement) carry the identity only.
 * The device is named by the IMEI when the message holds one, else by its numeric id.
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { ProtoReader } from './protobuf.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 65541;
const MAGIC = 0x55aa55aa;
const POSITION = 0x0001;

function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 6) return null;
      if (buffer.readUInt32BE(0) !== MAGIC) throw new FrameError('maxpb: bad header');
      const length = 6 + buffer.readUInt16LE(4);
      return buffer.length < length ? null : { frame: buffer.subarray(0, length), consumed: length };
    },
  };
}

function position(p: ProtoReader, rec: DeviceRecord): void {
  while (p.next()) {
    switch (p.field) {
      case 3: rec.lat = p.sfixed32() / 1e7; break;
      case 4: rec.lng = p.sfixed32() / 1e7; break;
      case 5: rec.altitude = p.sint(); break;
      case 6: rec.precision = p.uint(); break;
      case 7: rec.course = p.uint() % 360; break;
    }
  }
}

function gps(p: ProtoReader, rec: DeviceRecord): void {
  rec.valid = false;
  while (p.next()) {
    if (p.field === 2) rec.valid = p.uint() >= 2;
    else if (p.field === 3) rec.satellites = p.uint();
    else if (p.field === 5) rec.hdop = p.uint() / 10;
  }
}

function flags(p: ProtoReader, rec: DeviceRecord): void {
  while (p.next()) {
    if (p.field !== 1) continue;
    const d = p.message();
    let [power, level, battery] = [0, 0, 0]; // absent values are 0 (proto2 defaults)
    while (d.next()) {
      if (d.field === 2) power = d.uint();
      else if (d.field === 4) level = d.uint();
      else if (d.field === 5) battery = d.uint();
    }
    Object.assign(rec.attributes, { [Attr.power]: power / 1000, [Attr.batteryLevel]: level, [Attr.battery]: battery / 1000 });
  }
}

function report(p: ProtoReader, now: number): DeviceRecord | undefined {
  const rec: DeviceRecord = { valid: true, attributes: {} };
  let located = false;
  while (p.next()) {
    switch (p.field) {
      case 3: rec.time = p.uint() * 1000; break;
      case 4: located = true; position(p.message(), rec); break;
      case 5: gps(p.message(), rec); break;
      case 6: {
        const io = p.message();
        while (io.next()) if (io.field === 1) rec.attributes[Attr.ignition] = io.uint() !== 0;
        break;
      }
      case 7: flags(p.message(), rec); break;
    }
  }
  if (!located) return undefined;
  rec.lat ??= 0;
  rec.lng ??= 0;
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('maxpb: coordinates out of range');
  rec.time ??= now;
  return rec;
}

/** The IMEI of an identification pack, if it holds a plausible one. */
function packImei(p: ProtoReader): string | undefined {
  let imei: string | undefined;
  while (p.next()) if (p.field === 1 && p.wire === 2) imei = p.string();
  return imei && /^\w{1,32}$/.test(imei) ? imei : undefined;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  if (r.u32() !== MAGIC) throw new DecodeError('maxpb: bad header');
  r.skip(4); // size, CRC
  const type = r.u16le();
  if (r.u16le() !== 0) return {}; // a body format other than protobuf
  const body = new ProtoReader(r.bytes(r.remaining));
  let deviceNumber: string | undefined;
  let imei: string | undefined;
  const records: DeviceRecord[] = [];
  let latest: DeviceRecord | undefined;
  while (body.next()) {
    if (body.field === 1 && body.wire === 0) deviceNumber = String(body.uint());
    else if (body.field === 3 && body.wire === 2 && type !== 0x0002) imei = packImei(body.message());
    else if (type === POSITION && (body.field === 4 || body.field === 5)) {
      const rec = report(body.message(), ctx.now);
      if (rec && body.field === 4) latest = rec;
      else if (rec) records.push(rec);
    }
  }
  if (latest) records.push(latest);
  const deviceId = imei ?? deviceNumber;
  if (!deviceId) return {};
  return records.length ? { deviceId, records } : { deviceId };
}

export const protocol: Protocol = {
  name: 'maxpb',
  defaultPort: 5221,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
