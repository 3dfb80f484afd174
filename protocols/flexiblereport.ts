/**
 * Flexible Report (UDP) binary protocol: `7D | u8 flags | 8-byte IMEI (BCD, a pad digit first) | u16 index |
 * u32 time | u8 event | u8 length | u8 type | ...`. Times count seconds on a calendar of 31-day months and
 * 12-month years from 2000. Type 0 (general): `u8 length | u32 mask` then by mask bit: 0 product id, 1 fix time,
 * 2 lat + 90, lon + 180 (u32 1e-6), 3 km/h and u16 course, 4 altitude, 5 accuracy, 6 power mV, 7 battery mV,
 * 8 auxiliary mV, 9 solar mV, 10 cell service (bit 7 roaming) + 4 bytes cell, 11 rssi, 12 inputs (bit 0 ignition),
 * 13 outputs, 14 odometer km, 15 temperature x 100.
 * When the low two flag bits ask for it the packet is answered `7E 0002 E0 <4F for an odd index, 0F for even>`.
 */
import { Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MSG_GENERAL = 0x00;

function readTime(r: Reader): number {
  const t = r.u32();
  const s = t % 60;
  const m = Math.floor(t / 60) % 60;
  const h = Math.floor(t / 3600) % 24;
  const day = 1 + (Math.floor(t / 86400) % 31);
  const month = 1 + (Math.floor(t / (86400 * 31)) % 12);
  const year = 2000 + Math.floor(t / (86400 * 31 * 12));
  return Date.UTC(year, month - 1, day, h, m, s);
}

type Field = (r: Reader, rec: DeviceRecord) => void;
const mv = (name: string): Field => (r, rec) => (rec.attributes[name] = r.u16() / 1000);
const FIELDS: Field[] = [
  (r) => r.skip(1), // product id
  (r, rec) => (rec.time = readTime(r)),
  (r, rec) => {
    rec.valid = true;
    rec.lat = r.u32() / 1e6 - 90;
    rec.lng = r.u32() / 1e6 - 180;
    if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('flexiblereport: coordinates out of range');
  },
  (r, rec) => {
    rec.speed = r.u8();
    rec.course = r.u16() % 360;
  },
  (r, rec) => (rec.altitude = r.i16()),
  (r) => r.skip(2), // accuracy
  mv(Attr.power),
  mv(Attr.battery),
  mv('auxPower'),
  mv('solarPower'),
  (r, rec) => {
    const service = r.u8();
    rec.attributes.roaming = (service & 0x80) !== 0;
    rec.attributes.service = service & 0x7f;
    r.skip(4); // cell
  },
  (r) => r.skip(1), // rssi
  (r, rec) => {
    const inputs = r.u8();
    rec.attributes[Attr.ignition] = (inputs & 0x01) !== 0;
    rec.attributes[Attr.input] = inputs;
  },
  (r, rec) => (rec.attributes[Attr.output] = r.u8()),
  (r, rec) => (rec.attributes[Attr.odometer] = r.u32() * 1000),
  (r, rec) => (rec.attributes[indexed.temp(1)] = r.u16() / 100),
];

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 1);
  const flags = r.u8();
  const imei = r.hex(8).slice(1);
  if (!/^\d{15}$/.test(imei)) throw new DecodeError('flexiblereport: bad IMEI');
  const index = r.u16();
  const reply = flags & 0x03 ? Buffer.from([0x7e, 0x00, 0x02, 0xe0, index & 1 ? 0x4f : 0x0f]) : undefined;
  const deviceTime = readTime(r);
  const event = r.u8();
  r.skip(1); // length
  if (r.u8() !== MSG_GENERAL) return { deviceId: imei, reply };
  r.skip(1); // length
  const mask = r.u32();
  const rec: DeviceRecord = { attributes: { [Attr.event]: event } };
  FIELDS.forEach((read, bit) => Math.floor(mask / 2 ** bit) % 2 === 1 && read(r, rec));
  rec.time ??= deviceTime;
  return { deviceId: imei, records: [rec], reply };
}

export const protocol: Protocol = {
  name: 'flexiblereport',
  defaultPort: 5227,
  transports: ['udp'],
  maxFrameSize: 1024,
  decode,
  commands: [],
};
