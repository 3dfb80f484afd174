/**
 * Austin NB (UDP): one semicolon-separated datagram per fix, decimals with a comma:
 *   `<id>;<yyyy-mm-dd hh:mm:ss>;<lat>;<lon>;<azimuth>;<angle>;<range>;<out of range>;<operator>`
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const REPORT = /^(\d+);(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d);(-?\d+,\d+);(-?\d+,\d+);(\d+);(\d+);(\d+);(\d+);([^;]*)/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('austinnb: not a report');
  const [, id, yy, mo, dd, hh, mi, ss, lat, lng, azimuth, angle, range, outOfRange, operator] = m;
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: true,
    lat: Number(lat.replace(',', '.')),
    lng: Number(lng.replace(',', '.')),
    course: Number(azimuth) % 360,
    attributes: { angle: Number(angle), range: Number(range), outOfRange: Number(outOfRange), [Attr.operator]: operator },
  };
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('austinnb: coordinates out of range');
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'austinnb',
  defaultPort: 5158,
  transports: ['udp'],
  maxFrameSize: 1024,
  decode,
  commands: [],
};
