/**
 * ArkNav X8 text protocol, messages cut at `;`.
 *
 *   login     `<imei 15>,<x>`
 *   position  `1G|1R|1M,<yymmddhhmmss>,<A|V>,<ddmm.mmmm><N|S>,<dddmm.mmmm><E|W>,<knots>,<course>,<hdop>,<status>`
 *   status    `2G,<yymmddhhmmss>,<satellites>,<altitude>,<power V>,<battery V>,<odometer knot-seconds>`
 * (`1R`/`2R` are retransmitted records; a `2R` is not kept.) The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, nmeaCoordinate, utc } from './text.ts';
import type { DecodeContext, DecodeResult, Protocol } from './types.ts';

const MAX_FRAME = 1024;
const LOGIN = /^(\d{15}),/;
const POSITION = /^(1[GRM]),(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),([AV]),(\d+\.\d+)([NS]),(\d+\.\d+)([EW]),(\d+\.\d+),(\d+),(\d+\.\d+),(\d+)$/;
const STATUS = /^2G,(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),(\d+),(\d+\.\d+),(\d+\.\d+),(\d+\.\d+),(\d+\.\d+)$/;
/** The odometer counts knot-seconds: metres per unit. */
const KNOT_SECOND_M = 1852 / 3600;

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  const login = LOGIN.exec(s);
  if (login) return { deviceId: login[1] };
  if (!ctx.deviceId) return {};
  let m = POSITION.exec(s);
  if (m) {
    const [, type, yy, mo, dd, hh, mi, ss, valid, lat, ns, lng, ew, knots, course, hdop, status] = m;
    const rec = {
      time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
      valid: valid === 'A',
      lat: nmeaCoordinate(lat, ns),
      lng: nmeaCoordinate(lng, ew),
      speed: knotsToKmh(Number(knots)),
      course: Number(course) % 360,
      hdop: Number(hdop),
      attributes: { type, [Attr.status]: status },
    };
    return { records: [rec] };
  }
  m = STATUS.exec(s);
  if (m) {
    const [, yy, mo, dd, hh, mi, ss, sats, altitude, power, battery, odometer] = m;
    const time = utc(+yy, +mo, +dd, +hh, +mi, +ss);
    const attributes = { [Attr.power]: Number(power), [Attr.battery]: Number(battery), [Attr.odometer]: Number(odometer) * KNOT_SECOND_M };
    return { records: [{ time, satellites: Number(sats), altitude: Number(altitude), attributes }] };
  }
  return {};
}

export const protocol: Protocol = {
  name: 'arknavx8',
  defaultPort: 5119,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('arknavx8', [0x3b], MAX_FRAME),
  decode,
  commands: [],
};
