/**
 * PathAway (phone app) HTTP: GET `?UserName=<name>&Password=..&LOC=$PWS,<version>,<name>,<icon>,<color>,
 * <ddMMyy>,<HHmmss>,<lat>,<lon>,<altitude>,<speed>,<course>,...`. The user name names the device.
 * 200 with an empty body after the commit; 400 without a user name or a readable location.
 */
import { knotsToKmh } from './binary.ts';
import { requestParams } from './http-params.ts';
import { utc } from './text.ts';
import { type DecodeContext, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const LOC = /^\$PWS,\d+,[^,]*,[^,]*,[^,]*,(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(-?\d+\.\d+),(-?\d+\.\d+),(-?\d+\.?\d*),(-?\d+\.?\d*),(-?\d+\.?\d*),/;

function decodeHttp(req: HttpRequest, _ctx: DecodeContext): HttpDecodeResult {
  const params = requestParams(req, 'pathaway');
  const deviceId = params.get('UserName')?.trim();
  const m = LOC.exec(params.get('LOC') ?? '');
  if (!deviceId || deviceId.length > 64 || !m) return { status: 400 };
  const [lat, lng] = [Number(m[7]), Number(m[8])];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { status: 400 };
  return {
    deviceId,
    records: [
      {
        time: utc(Number(m[3]), Number(m[2]), Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6])),
        valid: true,
        lat,
        lng,
        altitude: Number(m[9]),
        speed: knotsToKmh(Math.max(0, Number(m[10]))),
        course: Math.max(0, Number(m[11])) % 360,
        attributes: {},
      },
    ],
    status: 200,
    body: '',
  };
}

export const protocol: Protocol = {
  name: 'pathaway',
  defaultPort: 5099,
  transports: ['http'],
  maxFrameSize: 65536,
  decodeHttp,
};
