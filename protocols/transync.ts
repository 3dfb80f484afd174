/**
 * TranSync binary protocol (big-endian): `::`, length of the fixed part, LAC (u16), device id (8 bytes,
 * hex), index, type, yy MM dd HH mm ss, latitude and longitude (u32, 1/1 800 000 degree), speed km/h,
 * course, MNC, cell id, status 0 (bit 0 valid, 1 north, 2 east, 3 ignition, 4 power off, 5 input 3,
 * 6 output 2, 7 output 1), reserved, event code, status 3 (bit 7 stored, bit 5 GPS antenna cut), signal,
 * battery (0.1 V), satellites, HDOP, analog 1 (i16); then tags (id, length, data) in a fixed order:
 * odometer, RFID, analog 2, analog 3; then `##`. Devices get no answer.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { utc } from './text.ts';
import { DecodeError, FrameError, type AttrValue, type DecodeContext, type DecodeResult, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const EVENT_ALARMS: Record<number, string> = {
  4: Alarm.lowBattery,
  6: Alarm.powerRestored,
  10: Alarm.sos,
  13: Alarm.hardBraking,
  14: Alarm.hardAcceleration,
  17: Alarm.overspeed,
  23: Alarm.accident,
};

/** The fixed part by its length byte, then tags until `##`. */
function transyncFramer(): Framer {
  return {
    next(buffer) {
      const from = buffer.indexOf('::', 0, 'latin1');
      if (from < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('transync: no message start');
        return null;
      }
      if (buffer.length - from < 5) return null;
      let at = from + 3 + buffer[from + 2];
      while (at < buffer.length && buffer[at] !== 0x23) {
        if (at + 1 >= buffer.length) return null;
        at += 2 + buffer[at + 1];
        if (at - from > MAX_FRAME) throw new FrameError('transync: frame too long');
      }
      if (buffer.length < at + 2) return null;
      if (buffer[at + 1] !== 0x23) throw new FrameError('transync: bad end');
      return { frame: buffer.subarray(from, at + 2), consumed: at + 2 };
    },
  };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (frame[0] !== 0x3a || frame[1] !== 0x3a) throw new DecodeError('transync: not a frame');
  const r = new Reader(frame, 3);
  r.skip(2); // LAC
  const deviceId = r.hex(8);
  r.skip(3); // index, type
  const [yy, mo, dd, hh, mi, ss] = r.bytes(6);
  const lat = r.u32() / 1_800_000;
  const lng = r.u32() / 1_800_000;
  if (lat > 90 || lng > 180) throw new DecodeError('transync: coordinates out of range');
  const speed = r.u8();
  const course = r.u16() % 360;
  r.skip(3); // MNC, cell id
  const status0 = r.u8();
  r.skip(1);
  const event = r.u8();
  const status3 = r.u8();
  const a: Record<string, AttrValue> = {
    [indexed.out(1)]: (status0 & 0x80) !== 0,
    [indexed.out(2)]: (status0 & 0x40) !== 0,
    [indexed.in(3)]: (status0 & 0x20) !== 0,
    [Attr.ignition]: (status0 & 0x08) !== 0,
    [Attr.event]: event,
  };
  if (status0 & 0x10) a[Attr.alarm] = Alarm.powerOff;
  if (EVENT_ALARMS[event]) a[Attr.alarm] = EVENT_ALARMS[event];
  if (status3 & 0x20) a[Attr.alarm] = Alarm.gpsAntennaCut;
  if (status3 & 0x80) a[Attr.archive] = true;
  a[Attr.rssi] = r.u8();
  a[Attr.battery] = Math.floor(r.u8() / 10);
  const satellites = r.u8();
  const hdop = r.u8();
  a[indexed.adc(1)] = r.i16();
  const tags = [Attr.odometer, Attr.driverUniqueId, indexed.adc(2), indexed.adc(3)];
  for (const name of tags) {
    if (r.remaining < 3 || r.peekU8() === 0x23) break;
    r.skip(1); // tag id
    const data = r.bytes(r.u8());
    if (!data.length) continue;
    if (name === Attr.driverUniqueId) {
      if (data.some((b) => b !== 0)) a[name] = data.toString('hex');
    }
    else if (name === Attr.odometer && data.length >= 4) a[name] = data.readInt32BE(0);
    else if (name !== Attr.odometer && data.length >= 2) a[name] = data.readUInt16BE(0);
  }
  return {
    deviceId,
    records: [{ time: utc(yy, mo, dd, hh, mi, ss), valid: (status0 & 1) !== 0, lat: status0 & 2 ? lat : -lat, lng: status0 & 4 ? lng : -lng, speed, course, satellites, hdop, attributes: a }],
  };
}

export const protocol: Protocol = {
  name: 'transync',
  defaultPort: 5247,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: transyncFramer,
  decode,
  commands: [],
};
