/**
 * AIS (ships) as NMEA `!AIVDM` sentences from an AIS receiver, one a line:
 *   `!AIVDM,<count>,<index>,[<message id>],<channel>,<6-bit armoured payload>,<fill bits>*<checksum>`
 * Multi-sentence payloads are joined by message id (kept per connection). Position reports (types 1, 2, 3 and 18)
 * are kept, each under the ship's MMSI: speed in 0.1 knot, lon/lat in 1/10000 minute (181 / 91 mean unknown:
 * no position then), course in 0.1 degree, true heading. AIS carries no time here: records get the time of arrival.
 * The receivers expect no answer.
 */
import { knotsToKmh } from './binary.ts';
import { delimitedFramer } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const SENTENCE = /^!AIVDM,(\d+),(\d+),(\d*),.?,([^,]+),/;
const POSITION_TYPES = new Set([1, 2, 3, 18]);
const MAX_PARTS = 16;

/** The payload's bits, 6 per armoured character. */
class Bits {
  private readonly values: number[] = [];
  private pos = 0;
  add(text: string): void {
    for (let i = 0; i < text.length; i++) {
      let v = text.charCodeAt(i) - 48;
      if (v > 40) v -= 8;
      if (v < 0 || v > 63) throw new DecodeError('ais: bad payload character');
      this.values.push(v);
    }
  }
  get size(): number {
    return this.values.length * 6;
  }
  unsigned(n: number): number {
    if (this.pos + n > this.size) throw new DecodeError('ais: payload too short');
    let v = 0;
    for (let i = 0; i < n; i++, this.pos++) v = v * 2 + ((this.values[Math.floor(this.pos / 6)] >> (5 - (this.pos % 6))) & 1);
    return v;
  }
  signed(n: number): number {
    const v = this.unsigned(n);
    return v >= 2 ** (n - 1) ? v - 2 ** n : v;
  }
}

function position(bits: Bits, now: number): DeviceRecord | undefined {
  const type = bits.unsigned(6);
  if (!POSITION_TYPES.has(type)) return undefined;
  bits.unsigned(2); // repeat indicator
  const mmsi = String(bits.unsigned(30));
  const rec: DeviceRecord = { deviceId: mmsi, time: now, attributes: {} };
  if (type === 18) bits.unsigned(8);
  else {
    rec.attributes.status = bits.unsigned(4);
    rec.attributes.turn = bits.signed(8);
  }
  const speed = bits.unsigned(10) / 10;
  rec.valid = bits.unsigned(1) !== 0; // position accuracy flag
  const lng = bits.signed(28) / 10000 / 60;
  const lat = bits.signed(27) / 10000 / 60;
  rec.course = (bits.unsigned(12) / 10) % 360;
  rec.attributes.heading = bits.unsigned(9);
  if (Math.abs(lat) <= 90 && Math.abs(lng) <= 180) Object.assign(rec, { lat, lng });
  if (speed < 102.3) rec.speed = knotsToKmh(speed); // 102.3 means unknown
  return rec;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const parts = (ctx.session.parts ??= {}) as Record<string, Bits>;
  const records: DeviceRecord[] = [];
  for (const sentence of frame.toString('latin1').split(/\r?\n/)) {
    const m = SENTENCE.exec(sentence.trim());
    if (!m) continue;
    const [, count, index, id, payload] = m;
    let bits: Bits;
    if (count === '1') {
      bits = new Bits();
      bits.add(payload);
    } else {
      if (Object.keys(parts).length > MAX_PARTS) throw new DecodeError('ais: too many open multi-part messages');
      bits = parts[id] ??= new Bits();
      bits.add(payload);
      if (count !== index) continue;
      delete parts[id];
    }
    const rec = position(bits, ctx.now);
    if (rec?.lat !== undefined) records.push(rec);
  }
  return { records };
}

export const protocol: Protocol = {
  name: 'ais',
  defaultPort: 5130,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('ais', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
