/**
 * Xirgo XT2400 binary reports over UDP. The report layout is the device's own `:wycfg pcr[<n>] <id><len><tags>`
 * configuration (hex), given to the decoder as the `config` setting (one or several lines): each report
 * is the listed tags' values in order, and with several layouts the report's first byte picks the one
 * whose id it equals. Tags decoded: 0x03 unit id (u32), 0x04 event, 0x05 index, 0x06 time (Unix seconds),
 * 0x07/0x08 latitude/longitude (i32, 1e-6°), 0x09 altitude (0.1 m), 0x0A course (0.1°), 0x0B speed km/h,
 * 0x10 trip odometer, 0x12 HDOP (0.1), 0x13 satellites, 0x14 signal, 0x16 battery and 0x17 supply
 * (0.1 V), 0x57 OBD speed, 0x65 VIN, 0x6C diagnostic codes (skipped), 0x73 firmware; others are skipped by
 * their known sizes (an unknown tag makes the report unreadable). A report at 0,0 takes the last fix, not
 * valid. Devices get no answer.
 */
import { Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { fixOrLast, type LastFix } from './last-fix.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;

const TAG_SIZES = new Map<number, number>();
const sizes = (size: number, tags: number[]) => tags.forEach((t) => TAG_SIZES.set(t, size));
sizes(1, [0x01, 0x02, 0x04, 0x0b, 0x0c, 0x0d, 0x12, 0x13, 0x16, 0x17, 0x1c, 0x1f, 0x23, 0x2c, 0x2d, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x40, 0x41, 0x53, 0x66, 0x69, 0x6a, 0x93, 0x94, 0x96]);
sizes(2, [0x05, 0x09, 0x0a, 0x14, 0x15, 0x1d, 0x1e, 0x24, 0x26, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x57, 0x58, 0x59, 0x5a, 0x6b, 0x6f, 0x7a, 0x7b, 0x7c, 0x7d, 0x7e, 0x7f, 0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0xc8]);
sizes(4, [0x03, 0x06, 0x07, 0x08, 0x0e, 0x0f, 0x10, 0x11, 0x18, 0x19, 0x1a, 0x1b, 0x20, 0x21, 0x22, 0x2e, 0x2f, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f, 0x50, 0x51, 0x52, 0x54, 0x55, 0x56, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x60, 0x61, 0x62, 0x68, 0x6e, 0x71, 0x72, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d]);
sizes(24, [0x95]);
sizes(21, [0xd0]);

/** Layouts of a `:wycfg pcr[...]` configuration, by report id. */
export function parseLayouts(config: string): Map<number, Buffer> {
  const layouts = new Map<number, Buffer>();
  for (const m of config.matchAll(/:wycfg pcr\[\d+\] ([0-9a-fA-F]{2})[0-9a-fA-F]{2}((?:[0-9a-fA-F]{2})+)/g)) layouts.set(parseInt(m[1], 16), Buffer.from(m[2], 'hex'));
  return layouts;
}

function layoutFor(frame: Buffer, ctx: DecodeContext): Buffer | undefined {
  const config = typeof ctx.config.config === 'string' ? ctx.config.config : '';
  const session = ctx.session as { layoutsOf?: string; layouts?: Map<number, Buffer>; last?: LastFix };
  if (session.layoutsOf !== config) session.layouts = parseLayouts(config);
  session.layoutsOf = config;
  const layouts = session.layouts!;
  return layouts.size > 1 ? layouts.get(frame[0]) : layouts.values().next().value;
}

function tag(t: number, r: Reader, rec: DeviceRecord, a: Record<string, AttrValue>): string | undefined {
  switch (t) {
    case 0x03: return String(r.u32());
    case 0x04: a[Attr.event] = r.u8(); break;
    case 0x05: a[Attr.index] = r.u16(); break;
    case 0x06: rec.time = r.u32() * 1000; break;
    case 0x07: rec.lat = r.i32() / 1e6; break;
    case 0x08: rec.lng = r.i32() / 1e6; break;
    case 0x09: rec.altitude = r.i16() / 10; break;
    case 0x0a: rec.course = (((r.i16() / 10) % 360) + 360) % 360; break;
    case 0x0b: rec.speed = r.u8(); break;
    case 0x10: a.tripOdometer = r.u32(); break;
    case 0x12: rec.hdop = r.u8() / 10; break;
    case 0x13: rec.satellites = r.u8(); break;
    case 0x14: a[Attr.rssi] = r.i16(); break;
    case 0x16: a[Attr.battery] = r.u8() / 10; break;
    case 0x17: a[Attr.power] = r.u8() / 10; break;
    case 0x57: a[Attr.obdSpeed] = r.u16(); break;
    case 0x65: {
      const vin = r.ascii(17).replace(/\0/g, '').trim();
      if (vin) a[Attr.vin] = vin;
      break;
    }
    case 0x6c: {
      r.skip(1); // MIL
      const ecus = r.u8();
      for (let i = 0; i < ecus; i++) r.skip(1).skip(r.u8() * 6);
      break;
    }
    case 0x73: {
      const version = r.ascii(16).replace(/\0/g, '').trim();
      if (version) a.versionFw = version;
      break;
    }
    default: {
      const size = TAG_SIZES.get(t);
      if (size === undefined) throw new DecodeError(`xt2400: unknown tag ${t}`);
      r.skip(size);
    }
  }
  return undefined;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const layout = layoutFor(frame, ctx);
  if (!layout) return {};
  const r = new Reader(frame);
  const rec: DeviceRecord = { attributes: {} };
  let deviceId: string | undefined;
  for (const t of layout) deviceId = tag(t, r, rec, rec.attributes) ?? deviceId;
  if ((rec.lat !== undefined && Math.abs(rec.lat) > 90) || (rec.lng !== undefined && Math.abs(rec.lng) > 180)) throw new DecodeError('xt2400: coordinates out of range');
  if (rec.lat && rec.lng) rec.valid = true;
  else delete rec.lat; // 0,0: no fix
  fixOrLast(ctx.session as { last?: LastFix }, rec, ctx.now);
  return { deviceId, records: [rec] };
}

export const protocol: Protocol = {
  name: 'xt2400',
  defaultPort: 5138,
  transports: ['udp'],
  maxFrameSize: MAX_FRAME,
  decode,
  commands: [],
};
