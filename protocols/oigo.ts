/**
 * Oigo (Morey) UDP protocols.
 * AR messages start with 0x7e: length (u16), type (0x00 location), tag (low 3 bits: 0 IMEI as 8 BCD
 * bytes, 1 MEID as 14 ASCII after a byte), event (u8), a field mask (u32) and the fields it names:
 *   0 index, 1 date (year-2010<<4|month, day, h, m, s), 2 device time, 3 lat/lon (u32 1e-6 + 90/180),
 *   4 GNSS status (fix<<4|sats) + HDOP/10, 5 speed km/h, 6 course, 7 altitude, 8 RSSI, 9 power mV,
 *   10 battery mV, 11 GPIO, 12 odometer km, 13 software version, 14 hardware version, 15 config
 * MG messages: tag, IMEI (8 BCD bytes; its first byte carries flags: bit 6 no IMEI follows, bit 7 ack
 * wanted), IMSI, date (u16 year-2010<<12|month<<8|day), h, m, lat/lon (i32 dddmm.mmm ×1000), altitude
 * (ft), course, speed (mph), power (0.1 V), IO, seconds, RSSI, index, firmware, sats, odometer (miles).
 * An MG message asking for it is acknowledged with `E0 <index> 00`.
 */
import { Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MSG_AR_LOCATION = 0x00;
const MSG_ACK = 0xe0;
const FEET = 0.3048;
const MILE = 1609.344;

type Field = (r: Reader, rec: DeviceRecord) => void;
const a = (rec: DeviceRecord) => rec.attributes;

/** The AR fields by bit of the mask, in wire order. */
const AR_FIELDS: Field[] = [
  (r, rec) => (a(rec)[Attr.index] = r.u16()),
  (r, rec) => {
    const ym = r.u8();
    const [day, h, m, s] = [r.u8(), r.u8(), r.u8(), r.u8()];
    rec.time = Date.UTC(2010 + (ym >> 4), (ym & 0x0f) - 1, day, h, m, s);
  },
  (r) => r.skip(5), // device time
  (r, rec) => {
    rec.lat = r.u32() / 1e6 - 90;
    rec.lng = r.u32() / 1e6 - 180;
  },
  (r, rec) => {
    const status = r.u8();
    rec.valid = status >> 4 !== 0;
    rec.satellites = status & 0x0f;
    rec.hdop = r.u8() / 10;
  },
  (r, rec) => (rec.speed = r.u8()),
  (r, rec) => (rec.course = r.u16()),
  (r, rec) => (rec.altitude = r.i16()),
  (r, rec) => (a(rec)[Attr.rssi] = r.u8()),
  (r, rec) => (a(rec)[Attr.power] = r.u16() / 1000),
  (r, rec) => (a(rec)[Attr.battery] = r.u16() / 1000),
  (r) => r.skip(2), // GPIO
  (r, rec) => (a(rec)[Attr.odometer] = r.u32() * 1000),
  (r) => r.skip(6), // software version
  (r) => r.skip(5), // hardware version
  (r) => r.skip(2), // device configuration
];

function ar(frame: Buffer): DecodeResult {
  const r = new Reader(frame, 3);
  const type = r.u8();
  const tag = r.u8() & 0x07;
  let deviceId: string | undefined;
  if (tag === 0) deviceId = r.hex(8).slice(1);
  else if (tag === 1) deviceId = r.skip(1).ascii(14);
  const id = deviceId ? { deviceId } : {};
  if (type !== MSG_AR_LOCATION) return id;
  const rec: DeviceRecord = { attributes: { [Attr.event]: r.u8() } };
  const mask = r.u32();
  for (let bit = 0; bit < AR_FIELDS.length; bit++) if (mask & (1 << bit)) AR_FIELDS[bit](r, rec);
  check(rec);
  return { ...id, records: [rec] };
}

/** `dddmm.mmm` × 1000 as a signed integer. */
function mgCoordinate(value: number): number {
  const v = Math.abs(value);
  const deg = Math.floor(v / 100000) + (v % 100000) / 1000 / 60;
  return value < 0 ? -deg : deg;
}

function mg(frame: Buffer): DecodeResult {
  const r = new Reader(frame, 1);
  const flags = r.peekU8();
  let deviceId: string | undefined;
  if (flags & 0x40) r.skip(1);
  else deviceId = r.hex(8).slice(1);
  r.skip(8); // IMSI
  const date = r.u16();
  const [h, m] = [r.u8(), r.u8()];
  const rec: DeviceRecord = { valid: true, lat: mgCoordinate(r.i32()), lng: mgCoordinate(r.i32()), altitude: r.i16() * FEET, course: r.u16(), speed: r.u8() * 1.609344, attributes: {} };
  rec.attributes[Attr.power] = r.u8() / 10;
  rec.attributes[indexed.io(1)] = r.u8();
  rec.time = Date.UTC(2010 + (date >> 12), ((date >> 8) & 0x0f) - 1, date & 0xff, h, m, r.u8());
  rec.attributes[Attr.rssi] = r.u8();
  const index = r.u8();
  rec.attributes.versionFw = r.u8();
  rec.satellites = r.u8();
  rec.attributes[Attr.odometer] = Math.round(r.u32() * MILE);
  check(rec);
  return { ...(deviceId ? { deviceId } : {}), records: [rec], ...(flags & 0x80 ? { reply: Buffer.from([MSG_ACK, index, 0x00]) } : {}) };
}

function check(rec: DeviceRecord): void {
  if (rec.lat !== undefined && !(Math.abs(rec.lat) <= 90 && Math.abs(rec.lng!) <= 180)) throw new DecodeError('oigo: coordinates out of range');
  if (rec.time !== undefined && !Number.isFinite(rec.time)) throw new DecodeError('oigo: bad date');
  if (rec.course !== undefined && rec.course > 360) throw new DecodeError('oigo: bad course');
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (!frame.length) return {};
  return frame[0] === 0x7e ? ar(frame) : mg(frame);
}

export const protocol: Protocol = {
  name: 'oigo',
  defaultPort: 5121,
  transports: ['udp'],
  maxFrameSize: 1024,
  decode,
  commands: [],
};
