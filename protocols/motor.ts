/**
 * Motor protocol: hex text, one message a line. Bytes: `u32le id (shown as 8 hex digits) | 2 | u16le status | 2 |
 * u24 command | u8 flags (bit 7 valid, bit 0 alarm) | BCD: lat dd + mm.mmmm (2 + 6 digits), lon ddd + mm.mmmm (4 + 6),
 * speed x 10 (4), course x 10 (4), yy mm dd hh mm ss, rssi (2)`. The devices expect no answer.
 */
import { Alarm, Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;

/** `digits` BCD digits as a number (an even count: whole bytes). */
function bcd(r: Reader, digits: number): number {
  const s = r.hex(digits / 2);
  if (!/^\d+$/.test(s)) throw new DecodeError('motor: bad BCD');
  return Number(s);
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const text = frame.toString('latin1').trim();
  if (!/^([0-9A-Fa-f]{2})+$/.test(text)) throw new DecodeError('motor: not hex');
  const r = new Reader(Buffer.from(text, 'hex'));
  const id = r.u32le().toString(16).padStart(8, '0');
  r.skip(2);
  const rec: DeviceRecord = { attributes: { [Attr.status]: r.u16le() } };
  r.skip(2 + 3); // divider, command
  const flags = r.u8();
  rec.valid = (flags & 0x80) !== 0;
  if (flags & 0x01) rec.attributes[Attr.alarm] = Alarm.general;
  rec.lat = bcd(r, 2) + bcd(r, 6) / 10000 / 60;
  rec.lng = bcd(r, 4) + bcd(r, 6) / 10000 / 60;
  if (rec.lat > 90 || rec.lng > 180) throw new DecodeError('motor: coordinates out of range');
  rec.speed = bcd(r, 4) / 10;
  rec.course = (bcd(r, 4) / 10) % 360;
  const [yy, mo, dd, h, m, s] = [bcd(r, 2), bcd(r, 2), bcd(r, 2), bcd(r, 2), bcd(r, 2), bcd(r, 2)];
  rec.time = utc(yy, mo, dd, h, m, s);
  rec.attributes[Attr.rssi] = bcd(r, 2);
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'motor',
  defaultPort: 5202,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('motor', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
