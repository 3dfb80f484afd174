/**
 * NDTP v6 (Russian navigation data transfer protocol), little-endian: a 15-byte link header
 * `7E 7E | u16 length | u16 flags | u16 CRC | u8 type | u32 address | u16 id` and a service packet
 * `u16 service | u16 type | u16 flags | u32 request id | data`. Service 0 type 100 is the connection request
 * (`u16 version major, minor | u16 flags | u16 device id`); service 1 is navigation data: item 0/0-1 main
 * (`u32 time | i32 lon, i32 lat (1e-7) | u8 flags (bit 7 valid, bit 1 alarm) | u8 battery / 20 mV | u16 OBD km/h |
 * u16 km/h | u16 course | u16 odometer | i16 altitude | u8 satellites | u8 pdop`) and item 2/0 additional.
 * Both are answered with a service result: `7E 7E | u16 16 | 02 00 | u16 CRC-16/MODBUS (big-endian) | 02 | 0 | 0 |
 * u16 service | u32 0 | u32 request id | u32 0 (OK)`.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { crc16Modbus, lengthFieldFramer, Reader } from './binary.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const SRV_GENERIC_CONTROLS = 0;
const SRV_NAVDATA = 1;
const SGC_CONN_REQUEST = 100;

function answer(service: number, requestId: number): Buffer {
  const content = Buffer.alloc(14);
  content.writeUInt16LE(service, 0);
  content.writeUInt32LE(requestId, 6);
  const head = Buffer.alloc(15);
  head.writeUInt16BE(0x7e7e, 0);
  head.writeUInt16LE(content.length, 2);
  head.writeUInt16LE(2, 4); // CRC present
  head.writeUInt16BE(crc16Modbus(content), 6);
  head[8] = 2; // NPH packet
  return Buffer.concat([head, content]);
}

function navigation(r: Reader, rec: DeviceRecord): void {
  const a = rec.attributes;
  if (r.remaining < 2) return;
  let type = r.u8();
  let index = r.u8();
  if (type === 0 && (index === 0 || index === 1)) {
    rec.time = r.u32le() * 1000;
    rec.lng = r.i32le() / 1e7;
    rec.lat = r.i32le() / 1e7;
    if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('ndtpv6: coordinates out of range');
    const flags = r.u8();
    rec.valid = (flags & 0x80) !== 0;
    if (flags & 0x02) a[Attr.alarm] = Alarm.general;
    a[Attr.battery] = (r.u8() * 20) / 1000;
    a[Attr.obdSpeed] = r.u16le();
    rec.speed = r.u16le();
    rec.course = r.u16le() % 360;
    a[Attr.odometer] = r.u16le();
    rec.altitude = r.i16le();
    rec.satellites = r.u8();
    a.pdop = r.u8();
    if (r.remaining < 2) return;
    type = r.u8();
    index = r.u8();
  }
  if (type === 2 && index === 0) {
    r.skip(2); // battery millivolts (already above)
    for (let i = 2; i <= 4; i++) a[indexed.adc(i)] = r.u16le();
    r.skip(1 + 1 + 8 + 4); // inputs, outputs, input counters, track length
    a.antenna = r.u8();
    a.gpsStatus = r.u8();
    a.acceleration = r.u8();
    a[Attr.power] = (r.u8() * 200) / 1000;
  }
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 15);
  const service = r.u16le();
  const type = r.u16le();
  r.skip(2); // request flags
  const requestId = r.u32le();
  if (service === SRV_GENERIC_CONTROLS && type === SGC_CONN_REQUEST) {
    const major = r.u16le();
    const minor = r.u16le();
    r.skip(2); // connection flags
    const deviceId = String(r.u16le());
    return { deviceId, records: [{ time: ctx.now, attributes: { versionFw: `${major}.${minor}` } }], reply: answer(service, requestId) };
  }
  if (service !== SRV_NAVDATA || !ctx.deviceId) return {};
  const rec: DeviceRecord = { attributes: {} };
  navigation(r, rec);
  rec.time ??= ctx.now;
  return { records: [rec], reply: answer(service, requestId) };
}

export const protocol: Protocol = {
  name: 'ndtpv6',
  defaultPort: 5243,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  // u16le at offset 2 counts what follows the 15-byte link header
  createFramer: () => lengthFieldFramer('ndtpv6', 2, 2, 11, MAX_FRAME, true),
  decode,
  commands: [],
};
