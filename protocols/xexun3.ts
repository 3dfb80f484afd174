/**
 * Xexun (third binary generation) protocol: `FC | u16 length | u8 version | u8 type | u8 index | 8-byte IMEI
 * (BCD, one leading pad digit) | body | u16 CRC | CF`, big-endian; length counts version .. body.
 * Type 0x20 is data: sub-records `u8 type | u8 length | value`:
 *   0x64 fix (u32 time, f64 lat, f64 lon, f32 altitude, ephemeris, satellites, signal, u16 km/h)
 *   0x65 Wi-Fi (u32 time, count, 6-byte MAC + i8 rssi each)   0x66 cell (u32 time, mcc, mnc, i32 lac, u32 cid, rssi)
 *   0x69 alarm (u32 time, u8 alarm id, u8 data length, data: ICCID for id 17)
 *   0x6A status (battery %, network duration, signal, track sequence, motion, charging, steps, temperature,
 *        respiratory rate, heart rate, blood pressure, SpO2, fuel %)
 * A data packet with no time in it yields nothing.
 * Reply to every packet but a command answer (0x21): `FC 000C 03 <type> <index> <imei> 00 <CRC-16/CCITT-FALSE
 * of version .. result> CF`.
 */
import { Alarm, Attr } from './attributes.ts';
import { crc16CcittFalse, Reader } from './binary.ts';
import { lengthFieldFramer } from './framers.ts';
import { macColons, wifiAttribute } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const MSG_DATA = 0x20;
const MSG_COMMAND = 0x21;

const ALARMS: Record<number, string> = {
  1: Alarm.sos,
  2: Alarm.lowBattery,
  4: Alarm.removing,
  5: Alarm.movement,
  7: Alarm.fallDown,
  8: Alarm.accident,
  11: Alarm.powerRestored,
  12: Alarm.powerCut,
  13: Alarm.powerOn,
  14: Alarm.powerOff,
  15: Alarm.door,
  16: Alarm.door,
};

interface Parts {
  rec: DeviceRecord;
  deviceTime?: number;
  wifi: Array<{ mac: string; rssi: number }>;
}

const SUBRECORDS: Record<number, (r: Reader, p: Parts) => void> = {
  0x64: (r, { rec }) => {
    rec.time = r.u32() * 1000;
    Object.assign(rec, { valid: true, lat: r.f64(), lng: r.f64(), altitude: r.f32() });
    r.skip(1); // ephemeris
    rec.satellites = r.u8();
    r.skip(1); // signal
    rec.speed = r.u16();
    if (!(Math.abs(rec.lat!) <= 90 && Math.abs(rec.lng!) <= 180)) throw new DecodeError('xexun3: coordinates out of range');
  },
  0x65: (r, p) => {
    p.deviceTime = r.u32() * 1000;
    for (let n = r.u8(); n > 0; n--) p.wifi.push({ mac: macColons(r.hex(6)), rssi: r.i8() });
  },
  0x66: (r, p) => {
    p.deviceTime = r.u32() * 1000;
    p.rec.cells = [{ mcc: r.u16(), mnc: r.u16(), lac: r.i32(), cid: r.u32(), rssi: r.u8() }];
  },
  0x69: (r, p) => {
    p.deviceTime = r.u32() * 1000;
    const id = r.u8();
    const length = r.u8();
    if (ALARMS[id]) p.rec.attributes[Attr.alarm] = ALARMS[id];
    if (id === 17 && length > 0) p.rec.attributes[Attr.iccid] = r.hex(length);
  },
  0x6a: (r, { rec }) => {
    const a = rec.attributes;
    a[Attr.batteryLevel] = r.u8();
    r.skip(2); // network duration
    a[Attr.rssi] = r.u8();
    r.skip(1); // track sequence
    a[Attr.motion] = r.u8() > 0;
    a[Attr.charge] = r.u8() > 0;
    const steps = r.u16();
    if (steps !== 0xffff) a[Attr.steps] = steps;
    const temperature = r.i8();
    if (temperature !== -1) a.bodyTemp = temperature;
    r.skip(1); // respiratory rate
    const heart = r.u8();
    if (heart !== 0xff) a.heartRate = heart;
    r.skip(3); // blood pressure, SpO2
    const fuel = r.u8();
    if (fuel !== 0xff) a[Attr.fuelLevel] = fuel;
  },
};

function reply(type: number, index: number, imei: Buffer): Buffer {
  const b = Buffer.alloc(18);
  b[0] = 0xfc;
  b.writeUInt16BE(12, 1);
  b[3] = 0x03;
  b[4] = type;
  b[5] = index;
  imei.copy(b, 6);
  b[14] = 0; // result
  b.writeUInt16BE(crc16CcittFalse(b, 3, 15), 15);
  b[17] = 0xcf;
  return b;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  if (r.u8() !== 0xfc) throw new DecodeError('xexun3: bad start');
  const length = r.u16();
  r.skip(1); // version
  const type = r.u8();
  const index = r.u8();
  const imeiBytes = r.bytes(8);
  const deviceId = imeiBytes.toString('hex').slice(1);
  const result: DecodeResult = { deviceId, reply: type !== MSG_COMMAND ? reply(type, index, imeiBytes) : undefined };
  if (type !== MSG_DATA) return result;
  const body = new Reader(frame, r.pos, r.pos + Math.max(0, length - 11));
  const parts: Parts = { rec: { attributes: {} }, wifi: [] };
  while (body.remaining > 0) {
    const sub = body.u8();
    const value = new Reader(body.bytes(body.u8()));
    SUBRECORDS[sub]?.(value, parts);
  }
  if (parts.wifi.length) parts.rec.attributes.wifi = wifiAttribute(parts.wifi);
  if (parts.rec.time === undefined && parts.deviceTime === undefined) return result;
  parts.rec.time ??= parts.deviceTime;
  return { ...result, records: [parts.rec] };
}

export const protocol: Protocol = {
  name: 'xexun3',
  defaultPort: 5264,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  // u16 at offset 1 counts version .. body: start, length, CRC and end add 6
  createFramer: () => lengthFieldFramer('xexun3', { offset: 1, size: 2, adjust: 3 }, MAX_FRAME),
  decode,
  commands: [],
};
