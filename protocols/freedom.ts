/**
 * Freedom (GPS-Freedom units) text reports, one per line:
 *   IMEI,<imei>,<yyyy/MM/dd>, <HH:mm:ss>, <N|S>, Lat:<ddmm.mmmm>, <E|W>, Lon:<dddmm.mmmm>, Spd:<speed kn>
 * The devices expect no answer.
 */
import { knotsToKmh } from './binary.ts';
import { degMin, delimitedFramer, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = /^IMEI,(\d+),(\d{4})\/(\d\d)\/(\d\d), (\d\d):(\d\d):(\d\d), ([NS]), Lat:(\d\d)(\d+\.\d+), ([EW]), Lon:(\d{3})(\d+\.\d+), Spd:(\d+\.\d+)/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const lat = degMin(m[9], m[10], '', m[8]);
  const lng = degMin(m[12], m[13], '', m[11]);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId: m[1] };
  return {
    deviceId: m[1],
    records: [{ time: utc(Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7])), valid: true, lat, lng, speed: knotsToKmh(Number(m[14])), attributes: {} }],
  };
}

export const protocol: Protocol = {
  name: 'freedom',
  defaultPort: 5066,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('freedom', [0x0d, 0x0a], MAX_FRAME),
  decode,
  commands: [],
};
