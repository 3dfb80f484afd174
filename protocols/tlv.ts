/**
 * TLV protocol: messages cut at a NUL byte, each `<type, 2 ASCII chars>` followed by length-prefixed ASCII arguments
 * (`u8 length | text`; 0xFF bytes separate groups of them). The first argument of the 0A/0B/0C handshakes is the IMEI. Type 0E is a position:
 * `<imei> <unix time> <location id> <lon> <lat> <km/h> <course> <satellites>`.
 * 0A and 0C are answered with their type and a NUL.
 */
import { delimitedFramer, latin1 } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const ANSWERED = new Set(['0A', '0C']);

function args(frame: Buffer): string[] {
  const out: string[] = [];
  for (let at = 2; at < frame.length; ) {
    if (frame[at] === 0xff) {
      at++; // a separator between argument groups
      continue;
    }
    const n = frame[at];
    if (at + 1 + n > frame.length) throw new DecodeError('tlv: truncated argument');
    out.push(frame.toString('latin1', at + 1, at + 1 + n));
    at += 1 + n;
  }
  return out;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (frame.length < 2) throw new DecodeError('tlv: short message');
  const type = frame.toString('latin1', 0, 2);
  const a = args(frame);
  const reply = ANSWERED.has(type) ? latin1(`${type}\0`) : undefined;
  const deviceId = /^\d{6,20}$/.test(a[0] ?? '') ? a[0] : undefined;
  if (type !== '0E') return { deviceId, reply };
  const [, time, , lng, lat, speed, course, sats] = a.map(Number);
  if (!deviceId || ![time, lng, lat, speed, course, sats].every(Number.isFinite) || Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('tlv: bad position');
  return { deviceId, records: [{ time: time * 1000, valid: true, lat, lng, speed, course: course % 360, satellites: sats, attributes: {} }] };
}

export const protocol: Protocol = {
  name: 'tlv',
  defaultPort: 5146,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('tlv', [0x00], MAX_FRAME),
  decode,
  commands: [],
};
