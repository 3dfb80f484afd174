/**
 * DSF22 binary protocol (TCP and UDP), little-endian: `"FB" | u16 device id | u8 count | records`, each record
 * `i32 lat, i32 lon (1e-7) | u32 unix time | u8 km/h | u16 fuel (1/1000) | u8 status` (bit 0 ignition,
 * 1 input 1, 4 output 1, 6 jamming). Every packet is answered with the byte 0x01.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const RECORD = 4 + 4 + 4 + 1 + 2 + 1;
const MAX_FRAME = 5 + 255 * RECORD;

/** The size follows from the record count at offset 4. */
function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 5) return null;
      if (buffer[0] !== 0x46 || buffer[1] !== 0x42) throw new FrameError('dsf22: no FB header');
      const length = 5 + buffer[4] * RECORD;
      return buffer.length < length ? null : { frame: buffer.subarray(0, length), consumed: length };
    },
  };
}

function readRecord(r: Reader): DeviceRecord {
  const lat = r.i32le() / 1e7;
  const lng = r.i32le() / 1e7;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('dsf22: coordinates out of range');
  const time = r.u32le() * 1000;
  const speed = r.u8();
  const fuel = r.u16le() / 1000;
  const status = r.u8();
  const a: DeviceRecord['attributes'] = {
    [Attr.fuel]: fuel,
    [Attr.ignition]: (status & 0x01) !== 0,
    [indexed.in(1)]: (status & 0x02) !== 0,
    [indexed.out(1)]: (status & 0x10) !== 0,
    [Attr.status]: status,
  };
  if (status & 0x40) a[Attr.alarm] = Alarm.jamming;
  return { valid: true, lat, lng, time, speed, attributes: a };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 2);
  const deviceId = String(r.u16le());
  const records: DeviceRecord[] = [];
  for (let n = r.u8(); n > 0; n--) records.push(readRecord(r));
  return { deviceId, records, reply: Buffer.from([0x01]) };
}

export const protocol: Protocol = {
  name: 'dsf22',
  defaultPort: 5236,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
