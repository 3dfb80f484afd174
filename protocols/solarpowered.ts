/**
 * Solar-powered trackers on JT/T 808 framing (`7E ... 7E`, 0x7D escapes; the JT808 framer un-escapes):
 * `7E | 8-byte IMEI (BCD, 15 digits and a pad) | u8 type | u16 attributes | tags | u8 checksum | 7E`.
 * Type 0x11 (active report) carries tags `u8 tag | u8 length | value`:
 *   0x81 position: `u8 status (bit 3 south, bit 2 west) | yy mm dd hh mm ss | u32 lat, u32 lon (1e-6) | u8 km/h |
 *        u8 temperature (bit 7 sign) | u8 battery x 50 | u8 course`
 *   0x82 alarms: `u8 mask | u8 bits` (0 tampering, 1 low power, 2 SOS, 3 fall; 4 motion state)
 *   0x83 counters: uptime, GPS and GSM counts, three times, u8 rssi
 * The devices expect no answer.
 */
import { Alarm, Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { protocol as jt808 } from './jt808/index.ts';
import { utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MSG_ACTIVE_REPORTING = 0x11;
const ALARM_BITS: Array<[number, string]> = [[0, Alarm.tampering], [1, Alarm.lowPower], [2, Alarm.sos], [3, Alarm.fallDown]];

const TAGS: Record<number, (r: Reader, rec: DeviceRecord) => void> = {
  0x81: (r, rec) => {
    const status = r.u8();
    const [yy, mo, dd, h, m, s] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
    rec.time = utc(yy, mo, dd, h, m, s);
    const lat = r.u32() / 1e6;
    const lng = r.u32() / 1e6;
    if (lat > 90 || lng > 180) throw new DecodeError('solarpowered: coordinates out of range');
    rec.lat = status & 0x08 ? -lat : lat;
    rec.lng = status & 0x04 ? -lng : lng;
    rec.valid = true;
    rec.speed = r.u8();
    const t = r.u8();
    rec.attributes[Attr.deviceTemp] = t & 0x80 ? -(t & 0x7f) : t & 0x7f;
    rec.attributes[Attr.battery] = r.u8() / 50;
    rec.course = r.u8() % 360;
  },
  0x82: (r, rec) => {
    const mask = r.u8();
    const bits = r.u8();
    for (const [bit, alarm] of ALARM_BITS) if (mask & bits & (1 << bit)) rec.attributes[Attr.alarm] = alarm;
    if (mask & 0x10) rec.attributes[Attr.motion] = (bits & 0x10) !== 0;
  },
  0x83: (r, rec) => {
    r.skip(4 + 4 + 4 + 3); // uptime, GPS count, GSM count, positioning/registration/connection times
    rec.attributes[Attr.rssi] = r.u8();
  },
};

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 1, frame.length - 2);
  const imei = r.hex(8).slice(0, 15);
  if (!/^\d{15}$/.test(imei)) throw new DecodeError('solarpowered: bad IMEI');
  const type = r.u8();
  r.skip(2); // attributes
  if (type !== MSG_ACTIVE_REPORTING) return { deviceId: imei };
  const rec: DeviceRecord = { attributes: {} };
  while (r.remaining > 0) {
    const tag = r.u8();
    const value = new Reader(r.bytes(r.u8()));
    TAGS[tag]?.(value, rec);
  }
  rec.time ??= ctx.now;
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'solarpowered',
  defaultPort: 5201,
  transports: ['tcp'],
  maxFrameSize: jt808.maxFrameSize,
  // the JT/T 808 envelope: the same framer as jt808
  createFramer: () => jt808.createFramer!(),
  decode,
  commands: [],
};
