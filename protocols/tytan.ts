/**
 * Tytan UDP protocol (big-endian): protocol (u8), length (u16), index (u8, >> 3), device id (u32),
 * then records until the last two bytes: size (u8, from its own first byte), time (u32 s), GNSS byte
 * (satellites << 2 | fix), latitude and longitude (u24 scaled to ±90/±180), status (bit 0 ignition,
 * bits 2..4 GSM, bits 5..7 course in 45° steps from south), speed (km/h, 250+ unknown), and typed
 * extra elements (type u8, length u8, 255 = one more length byte) up to the record's size.
 * Every datagram is acknowledged with `^<index>`.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { latin1 } from './text.ts';
import { type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

type Attrs = DeviceRecord['attributes'];

/** Extra elements by type: each reads its value from a reader bounded to the element. */
const EXTRA: Record<number, (r: Reader, a: Attrs, length: number) => void> = {
  2: (r, a) => (a.tripOdometer = r.u24()),
  5: (r, a) => (a[Attr.input] = r.u8()),
  6: (r, a) => {
    const n = r.u8() >> 4;
    a[n < 2 ? indexed.adc(n) : `di${n - 2}`] = r.f32le(); // the float order of element 90
  },
  7: (r, a) => {
    if (r.u8() & 0x20) a[Attr.alarm] = Alarm.general;
  },
  8: (r, a) => (a.antihijack = r.u8()),
  9: (r, a) => (a.unauthorized = r.hex(8)),
  10: (r, a) => (a.authorized = r.hex(8)),
  24: (r, a, length) => {
    for (let i = 0; i < length >> 1; i++) a[indexed.temp(r.u8())] = r.i8();
  },
  28: (r, a) => (a.axleWeight = r.u16()),
  90: (r, a) => (a[Attr.power] = r.f32le()), // little-endian float: captured supplies read 12.74 V
  101: (r, a) => (a[Attr.obdSpeed] = r.u8()),
  102: (r, a) => (a[Attr.rpm] = r.u8() * 50),
  107: (r, a) => {
    const fuel = r.u16();
    const value = fuel & 0x3fff;
    const format = fuel >> 14;
    if (format === 1) a[Attr.fuelLevel] = value * 0.4;
    else if (format === 2) a[Attr.fuel] = value * 0.5;
    else if (format === 3) a[Attr.fuel] = value * -0.5;
  },
  108: (r, a) => (a.obdOdometer = r.u32() * 5),
  150: (r, a) => (a[Attr.door] = r.u8() !== 0),
};

function record(r: Reader): DeviceRecord {
  const end = r.pos + r.u8();
  const time = r.u32() * 1000;
  const gnss = r.u8();
  const lat = (r.u24() * -180) / 16777216 + 90;
  const lng = (r.u24() * 360) / 16777216 - 180;
  const status = r.u8();
  const speed = r.u8();
  const a: Attrs = { [Attr.ignition]: (status & 1) !== 0, [Attr.rssi]: (status >> 2) & 0x07 };
  const rec: DeviceRecord = { time, valid: (gnss & 0x03) > 0, satellites: gnss >> 2, lat, lng, course: ((status >> 5) * 45 + 180) % 360, attributes: a };
  if (speed < 250) rec.speed = speed;
  while (r.pos < end) {
    const type = r.u8();
    let length = r.u8();
    if (length === 255) length += r.u8();
    const element = new Reader(r.buf, r.pos, r.pos + length);
    r.skip(length);
    EXTRA[type]?.(element, a, length);
  }
  return rec;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  r.skip(3); // protocol, length
  const index = r.u8() >> 3;
  const deviceId = String(r.u32());
  const records: DeviceRecord[] = [];
  const body = new Reader(frame, r.pos, frame.length - 2);
  while (body.remaining > 0) records.push(record(body));
  return { deviceId, records, reply: latin1(`^${index}`) };
}

export const protocol: Protocol = {
  name: 'tytan',
  defaultPort: 5084,
  transports: ['udp'],
  maxFrameSize: 1500,
  decode,
  commands: [],
};
