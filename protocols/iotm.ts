/**
 * IoTM (Iot-Man telematics units): devices publish binary bodies over MQTT. A body is a structure
 * version byte, then blocks `type:u8 length:u16le data`, then a checksum byte. Block 1 is a record:
 * `time:u32le seconds`, then sensors `sensorType:u8 id:u16le value` (type 14 is the GNSS fix:
 * lat/lon float32, speed km/h u16, hdop, satellites, course u16, altitude i16). Block 3 is an event
 * (`time`, function id, event code): a status record. Other blocks are skipped. The device is the
 * MQTT client id (CONNECT). All little-endian.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { clientIdentity } from './mqtt-identity.ts';
import { DecodeError } from './types.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import type { AttrValue, Command, DecodeContext, DecodeResult, DeviceRecord, EncodeContext, Protocol } from './types.ts';

const VERSION = 2;
const BLOCK_IMEI = 2;
const BLOCK_OUTPUT = 4;

/**
 * `outputControl` (index 1.., data 0/1) as the PUBLISH body the device takes on topic `<imei>/OUTC`:
 * the IMEI block, then an output block (expiry, output id, command number, value), then the byte sum.
 * The command number is 0: the gateway sends one command at a time.
 */
export function encode(command: Command, ctx: EncodeContext): Buffer {
  if (command.type !== 'outputControl') throw new DecodeError(`iotm: unsupported command ${command.type}`);
  if (!/^\d{1,19}$/.test(ctx.deviceId)) throw new DecodeError('iotm: the device id must be numeric (its IMEI)');
  const index = Number(command.attributes.index);
  const value = Number(command.attributes.data);
  if (!(index >= 1 && index <= 256) || !(value >= 0 && value <= 255)) throw new DecodeError('iotm: bad index or data');
  const b = Buffer.alloc(1 + 3 + 8 + 3 + 10 + 1);
  let o = b.writeUInt8(VERSION, 0);
  o = b.writeUInt8(BLOCK_IMEI, o);
  o = b.writeUInt16LE(8, o);
  o = b.writeBigInt64LE(BigInt(ctx.deviceId), o);
  o = b.writeUInt8(BLOCK_OUTPUT, o);
  o = b.writeUInt16LE(10, o);
  o = b.writeInt32LE(0x7fffffff, o); // never expires
  o = b.writeUInt8(index - 1, o);
  o = b.writeUInt8(0, o); // command number
  o = b.writeUInt8(3, o); // value length
  o = b.writeUInt8(value, o);
  o = b.writeUInt8(0xb0, o);
  o = b.writeUInt8(0xb1, o);
  let sum = 0;
  for (let i = 0; i < o; i++) sum = (sum + b[i]) & 0xff;
  b.writeUInt8(sum, o);
  return b;
}

/** A cursor over one block; reading past its end is a decode error, never a crash. */
class Reader {
  pos = 0;
  constructor(private buf: Buffer) {}
  get left() {
    return this.buf.length - this.pos;
  }
  private take(n: number) {
    if (this.pos + n > this.buf.length) throw new DecodeError('iotm: truncated');
    const at = this.pos;
    this.pos += n;
    return at;
  }
  u8() {
    return this.buf.readUInt8(this.take(1));
  }
  i8() {
    return this.buf.readInt8(this.take(1));
  }
  u16() {
    return this.buf.readUInt16LE(this.take(2));
  }
  i16() {
    return this.buf.readInt16LE(this.take(2));
  }
  u32() {
    return this.buf.readUInt32LE(this.take(4));
  }
  i32() {
    return this.buf.readInt32LE(this.take(4));
  }
  i64() {
    return Number(this.buf.readBigInt64LE(this.take(8)));
  }
  f32() {
    return this.buf.readFloatLE(this.take(4));
  }
  f64() {
    return this.buf.readDoubleLE(this.take(8));
  }
  bytes(n: number) {
    const at = this.take(n);
    return this.buf.subarray(at, this.pos);
  }
}

type Read = (r: Reader) => AttrValue;

/** A sensor value by its declared type, for sensors without a known meaning (`io<id>`). */
const BY_TYPE: Record<number, Read> = {
  0: () => false,
  1: () => true,
  4: (r) => r.u8(),
  5: (r) => r.u16(),
  6: (r) => r.u32(),
  7: (r) => r.i64(),
  8: (r) => r.i8(),
  9: (r) => r.i16(),
  10: (r) => r.i32(),
  11: (r) => r.i64(),
  12: (r) => r.f32(),
  13: (r) => r.f64(),
  32: (r) => r.bytes(r.u8()).toString('latin1'),
  33: (r) => r.bytes(r.u8()).toString('hex'),
  64: (r) => r.bytes(r.u16()).toString('latin1'),
  65: (r) => r.bytes(r.u16()).toString('hex'),
};

/**
 * Known sensors by id: attribute name and conversion of the raw value. Every sensor is sized by its
 * declared type (a driver id may come as u32 or i64), so an unknown id never misaligns the rest.
 */
type Conv = (v: AttrValue) => AttrValue;
const same: Conv = (v) => v;
const onOff: Conv = (v) => v !== false && v !== 0;
const scale = (k: number): Conv => (v) => (typeof v === 'number' ? Math.round(v * k * 1e6) / 1e6 : v);
const text: Conv = (v) => String(v);
const SENSORS = new Map<number, [string, Conv]>([
  [0x0002, [Attr.motion, onOff]],
  ...[0, 1, 2, 3, 4, 5].map((i) => [0x10 + i, [indexed.in(i + 2), onOff]] as [number, [string, Conv]]),
  [0x0062, ['doorFL', onOff]],
  [0x0063, ['doorFR', onOff]],
  [0x0064, ['doorRL', onOff]],
  [0x0065, ['doorRR', onOff]],
  [0x001e, ['buttonPresent', onOff]],
  [0x006d, [Attr.ignition, onOff]],
  [0x008b, ['handBrake', onOff]],
  [0x008c, ['footBrake', onOff]],
  [0x0094, [indexed.out(1), onOff]],
  [0x0095, [indexed.out(2), onOff]],
  [0x0096, [indexed.out(3), onOff]],
  [0x009a, [indexed.out(4), onOff]],
  [0x2000, [Attr.obdSpeed, same]],
  [0x2001, ['satellites', same]],
  [0x2006, [Attr.throttle, same]],
  [0x2007, [Attr.fuelLevel, same]],
  [0x2008, [Attr.coolantTemp, same]],
  [0x2009, ['fuel2', same]],
  [0x200a, [Attr.engineLoad, same]],
  [0x2041, [Attr.batteryLevel, same]],
  [0x3000, [Attr.power, scale(0.001)]],
  [0x3001, [indexed.adc(5), scale(0.001)]],
  [0x3002, [indexed.adc(4), scale(0.001)]],
  [0x3003, [indexed.adc(3), scale(0.001)]],
  [0x3004, [Attr.battery, scale(0.001)]],
  [0x300c, [Attr.rpm, same]],
  [0x3021, [Attr.fuelConsumption, scale(0.05)]],
  [0x3037, ['cargoWeight', scale(2)]],
  [0x4001, [Attr.fuelUsed, same]],
  [0x4002, [Attr.hours, same]],
  [0x4003, [Attr.odometer, scale(5)]],
  [0x4063, ['axleWeight', same]],
  [0x5000, [Attr.driverUniqueId, text]],
  ...[0, 1, 2, 3].map((i) => [0x5004 + i, [indexed.temp(i + 1), same]] as [number, [string, Conv]]),
  [0x500d, ['trailerId', text]],
  [0xa000, [Attr.deviceTemp, same]],
  [0xa001, ['acceleration', same]],
  [0xa002, ['cornering', same]],
  ...[0, 1, 2, 3].map((i) => [0xa017 + i, [indexed.temp(i + 1), same]] as [number, [string, Conv]]),
  [0xb002, ['obdOdometer', same]],
]);
const JAMMING = new Set([0x0008, 0x009b]);
const GNSS = 14;

function sensor(rec: DeviceRecord, r: Reader, type: number, id: number): void {
  if (type === GNSS) {
    rec.valid = true;
    rec.lat = r.f32();
    rec.lng = r.f32();
    rec.speed = r.u16();
    rec.hdop = r.u8();
    rec.satellites = r.u8();
    rec.course = r.u16();
    rec.altitude = r.i16();
    return;
  }
  // Types 2 and 3 carry no value; a type the format does not define has no size we could skip.
  const read = BY_TYPE[type];
  if (!read) return;
  const value = read(r);
  if (JAMMING.has(id)) {
    if (value !== false && value !== 0) rec.attributes[Attr.alarm] = Alarm.jamming;
    return;
  }
  const known = SENSORS.get(id);
  if (known) rec.attributes[known[0]] = known[1](value);
  else rec.attributes[indexed.io(id)] = value;
}

function record(r: Reader): DeviceRecord {
  const rec: DeviceRecord = { time: r.u32() * 1000, attributes: {} };
  while (r.left > 0) {
    const type = r.u8();
    const id = r.u16();
    if (type === 3) continue;
    sensor(rec, r, type, id);
  }
  return rec;
}

interface Session {
  last?: LastFix;
}

/**
 * An event block carries no location: it gets the connection's last fix (not valid), or 0/0 not
 * valid before the first one, so the event still reaches the device's history.
 */
function event(block: Reader, session: Session): DeviceRecord {
  const rec: DeviceRecord = { time: block.u32() * 1000, attributes: {} };
  block.u8(); // function id
  rec.attributes[Attr.event] = block.u8();
  withLastFix(rec, session);
  if (rec.lat === undefined) Object.assign(rec, { lat: 0, lng: 0, valid: false });
  return rec;
}

export function decode(body: Buffer, ctx: DecodeContext): DecodeResult {
  const session = ctx.session as Session;
  const r = new Reader(body);
  r.u8(); // structure version
  const records: DeviceRecord[] = [];
  while (r.left > 1) {
    const type = r.u8();
    const block = new Reader(r.bytes(r.u16()));
    if (type === 1) {
      const rec = record(block);
      rememberFix(session, rec);
      if (rec.lat === undefined) withLastFix(rec, session);
      if (rec.lat === undefined) Object.assign(rec, { lat: 0, lng: 0, valid: false });
      records.push(rec);
    } else if (type === 3) records.push(event(block, session));
  }
  r.u8(); // checksum (the source does not define its algorithm; not verified)
  return records.length ? { records } : {};
}

export const protocol: Protocol = {
  name: 'iotm',
  defaultPort: 5218,
  transports: ['mqtt'],
  maxFrameSize: 64 * 1024,
  decodeMqttConnect: (clientId) => clientIdentity('iotm', clientId),
  decode,
  commands: ['outputControl'],
  encode,
};
