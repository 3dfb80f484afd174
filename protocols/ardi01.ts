/**
 * Ardi01 text reports, one per line:
 *
 *   `<imei>,<yyyymmddhhmmss>,<lon>,<lat>,<speed km/h>,<course>,<altitude m>,<satellites>,<event>,<battery %>,<temperature °C>`
 *
 * Longitude comes before latitude. The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { delimitedFramer, num, utc } from './text.ts';
import type { DecodeContext, DecodeResult, Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = /^(\d{10,20}),(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),(-?\d+\.\d+),(-?\d+\.\d+),(\d+),(\d+),(-?\d+),(\d+),(\d+),(\d+),(-?\d+)/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const [, imei, yy, mo, dd, hh, mi, ss, lon, lat, speed, course, altitude, sats, event, battery, temp] = m;
  const lng = Number(lon);
  const latitude = Number(lat);
  if (Math.abs(latitude) > 90 || Math.abs(lng) > 180) return { deviceId: imei };
  const attributes: Record<string, number> = { [Attr.event]: Number(event), [Attr.batteryLevel]: Number(battery) };
  // -1 is the device's "no thermometer".
  if (temp !== '-1') attributes[indexed.temp(1)] = Number(temp);
  return {
    deviceId: imei,
    records: [
      {
        time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
        valid: true,
        lat: latitude,
        lng,
        speed: num(speed),
        course: Number(course) % 360,
        altitude: Number(altitude),
        satellites: Number(sats),
        attributes,
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'ardi01',
  defaultPort: 5075,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('ardi01', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
