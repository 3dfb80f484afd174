/**
 * OpenGTS HTTP (the `gprmc` servlet the OpenGTS / GPSLogger / µ-logger apps send to):
 *   GET /?id=<device>&gprmc=$GPRMC,...&alt=<m>&batt=<%>[&dev=..&acct=..&code=..]
 * 200 when the device is named, 400 otherwise (or when the RMC is malformed).
 */
import { Attr } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { requestParams } from './http-params.ts';
import { nmeaCoordinate, num, utc } from './text.ts';
import { type DecodeContext, type DeviceRecord, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const RMC = /^\$GPRMC,(\d\d)(\d\d)(\d\d)(?:\.\d+)?,([AV]),(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),(\d+\.\d+),(\d+\.\d+)?,(\d\d)(\d\d)(\d\d),/;

function decodeHttp(req: HttpRequest, _ctx: DecodeContext): HttpDecodeResult {
  const params = requestParams(req, 'opengts');
  const deviceId = params.get('id')?.trim();
  if (!deviceId || deviceId.length > 64) return { status: 400 };
  const m = RMC.exec(params.get('gprmc') ?? '');
  if (!m) return { status: 400 };
  const rec: DeviceRecord = {
    time: utc(Number(m[13]), Number(m[12]), Number(m[11]), Number(m[1]), Number(m[2]), Number(m[3])),
    valid: m[4] === 'A',
    lat: nmeaCoordinate(m[5], m[6]),
    lng: nmeaCoordinate(m[7], m[8]),
    speed: knotsToKmh(Number(m[9])),
    course: (num(m[10]) ?? 0) % 360,
    attributes: {},
  };
  if (Math.abs(rec.lat!) > 90) return { status: 400 };
  const altitude = num(params.get('alt') ?? undefined);
  if (altitude !== undefined) rec.altitude = altitude;
  const battery = num(params.get('batt') ?? undefined);
  if (battery !== undefined) rec.attributes[Attr.batteryLevel] = battery;
  return { deviceId, records: [rec], status: 200 };
}

export const protocol: Protocol = {
  name: 'opengts',
  defaultPort: 5159,
  transports: ['http'],
  maxFrameSize: 65536,
  decodeHttp,
};
