/**
 * Homtecs (bus trackers) UDP lines:
 *   <id>_R<mac ending, 8 hex>,<yyMMdd>,<HHmmss.ss>,<sats>,<ddmm.mmmm>,<N|S>,<dddmm.mmmm>,<E|W>,<speed kn>,<course>,<fix>,<hdop>,<altitude>
 * Lines without a position name the device only. The devices expect no answer.
 */
import { knotsToKmh } from './binary.ts';
import { nmeaCoordinate, num, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const ID = /^([^_,]+)_R[0-9A-Fa-f]{8},/;
const REPORT = /^[^_]+_R[0-9A-Fa-f]{8},(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d)\.\d+,(\d+),(\d{4}\.\d+),([NS]),(\d{5}\.\d+),([EW]),(\d+\.?\d*)?,(\d+\.?\d*)?,(\d),(\d+\.?\d*)?,(-?\d+\.?\d*)?/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  const id = ID.exec(s);
  if (!id) return {};
  const m = REPORT.exec(s);
  if (!m) return { deviceId: id[1] };
  const lat = nmeaCoordinate(m[8], m[9]);
  if (Math.abs(lat) > 90) return { deviceId: id[1] };
  return {
    deviceId: id[1],
    records: [
      {
        time: utc(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])),
        satellites: Number(m[7]),
        lat,
        lng: nmeaCoordinate(m[10], m[11]),
        speed: knotsToKmh(num(m[12]) ?? 0),
        course: (num(m[13]) ?? 0) % 360,
        valid: Number(m[14]) > 0,
        hdop: num(m[15]) ?? 0,
        altitude: num(m[16]) ?? 0,
        attributes: {},
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'homtecs',
  defaultPort: 5104,
  transports: ['udp'],
  maxFrameSize: 1024,
  decode,
  commands: [],
};
