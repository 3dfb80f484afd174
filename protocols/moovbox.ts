/**
 * Moovbox HTTP: an XML POST `<gps id="<device>"><coordinates><coordinate><fix/><time>unix</time>
 * <latitude/><longitude/><altitude/><speed/><track/><satellites/>...</coordinate>...</coordinates></gps>`,
 * gpsd-style values (speed in m/s). The devices send latitude and longitude swapped (the captured
 * document places a Bangkok fix at latitude 100.7): they are read crosswise. Answered 200.
 */
import { xmlElements, xmlValue } from './http-params.ts';
import { DecodeError, type DecodeContext, type DeviceRecord, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const MAX_BODY = 1048576;

function coordinate(xml: string): DeviceRecord | undefined {
  const n = (tag: string) => Number(xmlValue(xml, tag));
  const [lat, lng, time] = [n('longitude'), n('latitude'), n('time')];
  if (!(Math.abs(lat) <= 90 && Math.abs(lng) <= 180) || !Number.isFinite(time)) return undefined;
  const rec: DeviceRecord = { time: time * 1000, valid: n('fix') >= 2 || xmlValue(xml, 'fix') === undefined, lat, lng, attributes: {} };
  if (Number.isFinite(n('altitude'))) rec.altitude = n('altitude');
  if (n('speed') >= 0) rec.speed = n('speed') * 3.6;
  if (n('track') >= 0 && n('track') <= 360) rec.course = n('track');
  if (Number.isInteger(n('satellites'))) rec.satellites = n('satellites');
  return rec;
}

function decodeHttp(req: HttpRequest, _ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) throw new DecodeError('moovbox: body too large');
  const xml = req.body.toString('utf8');
  const deviceId = /<gps\s[^>]*id="([^"]{1,64})"/.exec(xml)?.[1];
  if (!deviceId) return { status: 400 };
  const records = xmlElements(xml, 'coordinate').map(coordinate).filter((r): r is DeviceRecord => !!r);
  return { deviceId, records, status: 200 };
}

export const protocol: Protocol = {
  name: 'moovbox',
  defaultPort: 5212,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
