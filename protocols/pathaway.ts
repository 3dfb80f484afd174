/**
 * PathAway (phone app) over HTTP: `GET /?UserName=<id>&Password=<...>&LOC=<$PWS sentence>` where
 *
 *   `$PWS,1,"<name>",<symbol>,<...>,<ddmmyy>,<hhmmss>,<lat>,<lon>,<altitude m>,<speed km/h>,<course>,"<comment>",<icon>*<checksum>`
 *
 * Decimal degrees, UTC. The user name is the device identifier. Answered with HTTP 200 and no body;
 * 400 when the request carries no user name.
 */
import { num, utc } from './text.ts';
import type { DecodeContext, HttpDecodeResult, HttpRequest, Protocol } from './types.ts';

const MAX_REQUEST = 4096;
const PWS = /^\$PWS,\d+,"([^"]*)",[^,]*,[^,]*,(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?),(-?[\d.]*),([\d.]*),([\d.]*),"([^"]*)"/;

function decodeHttp(req: HttpRequest, _ctx: DecodeContext): HttpDecodeResult {
  const q = req.uri.indexOf('?');
  const params = new URLSearchParams(q >= 0 ? req.uri.slice(q + 1) : req.body.toString('latin1'));
  const deviceId = params.get('UserName')?.trim();
  if (!deviceId || deviceId.length > 64) return { status: 400 };
  const m = PWS.exec(params.get('LOC') ?? '');
  if (!m) return { deviceId, status: 200 };
  const [, name, dd, mo, yy, hh, mi, ss, lat, lon, altitude, speed, course, comment] = m;
  const latitude = Number(lat);
  const lng = Number(lon);
  if (Math.abs(latitude) > 90 || Math.abs(lng) > 180) return { deviceId, status: 200 };
  const attributes: Record<string, string> = {};
  if (name) attributes.name = name;
  if (comment) attributes.comment = comment;
  const heading = num(course);
  return {
    deviceId,
    status: 200,
    records: [
      {
        time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
        valid: true,
        lat: latitude,
        lng,
        altitude: num(altitude),
        speed: num(speed),
        course: heading === undefined ? undefined : heading % 360,
        attributes,
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'pathaway',
  defaultPort: 5099,
  transports: ['http'],
  maxFrameSize: MAX_REQUEST,
  decodeHttp,
};
