/**
 * Polte location cloud callbacks (HTTP): a POST of `{ueToken, location: {detected_at, latitude, longitude, altitude,
 * confidence}, report: {event, battery: {level, voltage}}}`; the device is its `ueToken`. A body without a location
 * is answered and kept out. Answer: HTTP 200; 400 without identity.
 */
import { Attr } from './attributes.ts';
import { jsonObjectBody, member, numberMember } from './json-body.ts';
import { DecodeError, type DecodeContext, type DeviceRecord, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const MAX_BODY = 64 * 1024;

function decodeHttp(req: HttpRequest, _ctx: DecodeContext): HttpDecodeResult {
  const j = jsonObjectBody(req.body, MAX_BODY, 'polte');
  const id = j && typeof j.ueToken === 'string' ? j.ueToken : undefined;
  if (!j || !id || id.length > 128) return { status: 400 };
  if (!j.location || typeof j.location !== 'object') return { deviceId: id, status: 200, body: '' };
  const l = member(j, 'location');
  const [time, lat, lng] = [numberMember(l, 'detected_at'), numberMember(l, 'latitude'), numberMember(l, 'longitude')];
  if (time === undefined || lat === undefined || lng === undefined || Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('polte: bad location');
  const rec: DeviceRecord = { time: time * 1000, valid: true, lat, lng, attributes: {} };
  const altitude = numberMember(l, 'altitude');
  if (altitude !== undefined) rec.altitude = altitude;
  const confidence = numberMember(l, 'confidence');
  if (confidence !== undefined) rec.precision = confidence;
  const report = member(j, 'report');
  const event = numberMember(report, 'event');
  if (event !== undefined) rec.attributes[Attr.event] = event;
  const battery = member(report, 'battery');
  const level = numberMember(battery, 'level');
  const voltage = numberMember(battery, 'voltage');
  if (level !== undefined) rec.attributes[Attr.batteryLevel] = level;
  if (voltage !== undefined) rec.attributes[Attr.battery] = voltage;
  return { deviceId: id, records: [rec], status: 200, body: '' };
}

export const protocol: Protocol = {
  name: 'polte',
  defaultPort: 5214,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
