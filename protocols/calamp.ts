/**
 * CalAmp LMU "LMDirect" over UDP. A datagram: optional options header (bit 7 of the first byte:
 * mobile id as BCD-like hex, padded with `f`, then id type, authentication, routing, forwarding,
 * redirection, each length-prefixed), then `service u8 | type u8 | sequence u16 | message`.
 *   2 event report, 8 locate report: time, fix time, lat/lon 1e-7, altitude cm, speed cm/s, heading,
 *     satellites, fix status, carrier, rssi, comm state, hdop, inputs, unit status, [event index, event],
 *     accumulators
 *   10 mini event report: time, lat/lon, heading, speed km/h, sats+fix, comm, inputs, event, accumulators
 *   4 user data: text (kept as `result`)
 * A message with service 1 (acknowledged) is answered with an ACK: `02 01 | sequence | type | 00 | 00 | 00 00 00`.
 */
import { Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MSG_ACK = 1;
const MSG_EVENT_REPORT = 2;
const MSG_USER_DATA = 4;
const MSG_LOCATE_REPORT = 8;
const MSG_MINI_EVENT_REPORT = 10;
const SERVICE_ACKNOWLEDGED = 1;
const SERVICE_RESPONSE = 2;
const MAX_ACCUMULATORS = 64;

function ack(type: number, sequence: number): Buffer {
  const b = Buffer.alloc(10);
  b[0] = SERVICE_RESPONSE;
  b[1] = MSG_ACK;
  b.writeUInt16BE(sequence, 2);
  b[4] = type;
  // result 0 (success), spare byte, then three reserved bytes
  return b;
}

function decodePosition(r: Reader, type: number): DeviceRecord {
  const mini = type === MSG_MINI_EVENT_REPORT;
  const rec: DeviceRecord = { attributes: {} };
  const a: Record<string, AttrValue> = rec.attributes;
  rec.time = r.u32() * 1000;
  if (!mini) r.u32(); // fix time
  rec.lat = r.i32() / 1e7;
  rec.lng = r.i32() / 1e7;
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('calamp: coordinates out of range');
  if (!mini) {
    rec.altitude = r.i32() / 100;
    rec.speed = r.u32() * 0.036; // cm/s
  }
  rec.course = r.i16();
  if (rec.course < 0 || rec.course > 360) rec.course = 0;
  if (mini) {
    rec.speed = r.u8();
    const fix = r.u8();
    rec.satellites = fix & 0x0f;
    rec.valid = (fix & 0x20) === 0;
  } else {
    rec.satellites = r.u8();
    rec.valid = (r.u8() & 0x08) === 0;
    a.carrier = r.u16();
    a[Attr.rssi] = r.i16();
  }
  a.modem = r.u8();
  if (!mini) rec.hdop = r.u8();
  const input = r.u8();
  a[Attr.input] = input;
  a[Attr.ignition] = (input & 1) !== 0;
  if (!mini) a[Attr.status] = r.u8();
  if (type === MSG_EVENT_REPORT || mini) {
    if (!mini) r.u8(); // event index
    a[Attr.event] = r.u8();
  }
  if (type === MSG_EVENT_REPORT || type === MSG_LOCATE_REPORT || mini) {
    const head = r.u8();
    const accType = head >> 6;
    const count = Math.min(head & 0x3f, MAX_ACCUMULATORS);
    if (!mini) a.append = r.u8();
    if (accType === 1) r.skip(8); // threshold and mask
    for (let i = 0; i < count && r.remaining >= 4; i++) a[`acc${i}`] = r.u32();
  } else if (type === MSG_USER_DATA) {
    r.u8(); // route
    r.u8(); // id
    a[Attr.result] = r.ascii(r.u16()).trim();
  }
  return rec;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  let deviceId: string | undefined;
  if (frame.length && frame[0] & 0x80) {
    const options = r.u8();
    if (options & 0x01) deviceId = r.hex(r.u8()).replace(/f+$/, '') || undefined;
    for (let bit = 1; bit <= 5; bit++) if (options & (1 << bit)) r.skip(r.u8());
  }
  const service = r.u8();
  const type = r.u8();
  const sequence = r.u16();
  const reply = service === SERVICE_ACKNOWLEDGED ? ack(type, sequence) : undefined;
  if (!(deviceId ?? ctx.deviceId)) return { reply };
  if (type === MSG_EVENT_REPORT || type === MSG_LOCATE_REPORT || type === MSG_MINI_EVENT_REPORT || type === MSG_USER_DATA) {
    return { deviceId, records: [decodePosition(r, type)], reply };
  }
  return { deviceId, reply };
}

export const protocol: Protocol = {
  name: 'calamp',
  defaultPort: 5082,
  transports: ['udp'],
  maxFrameSize: 1500,
  decode,
  commands: [],
};
