/**
 * Polte (cloud location for LTE-M modules) webhook: one JSON location report per POST.
 *
 *   `{ ueToken, uid, time, location: { latitude, longitude, altitude, confidence, detected_at, LocationMetrics: { hdop, ... } },
 *      report: { event, time, battery: { level, voltage, count } } }`
 *
 * The module's `ueToken` is the device identifier. Answered 200; 400 for a body that is not such a report.
 */
import { Attr } from './attributes.ts';
import { jsonNumber, jsonObject } from './text.ts';
import { DecodeError } from './types.ts';
import type { AttrValue, DecodeContext, DeviceRecord, HttpDecodeResult, HttpRequest, Protocol } from './types.ts';

const MAX_BODY = 64 * 1024;
type Json = Record<string, unknown>;
const obj = jsonObject;
const finite = jsonNumber;

function decodeHttp(req: HttpRequest, _ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) throw new DecodeError('polte: body too large');
  let root: Json;
  try {
    root = obj(JSON.parse(req.body.toString('utf8')));
  } catch {
    return { status: 400 };
  }
  const deviceId = typeof root.ueToken === 'string' ? root.ueToken.trim() : '';
  if (!deviceId || deviceId.length > 64) return { status: 400 };
  const location = obj(root.location);
  const report = obj(root.report);
  const battery = obj(report.battery);
  const attributes: Record<string, AttrValue> = {};
  const put = (key: string, v: unknown) => {
    const n = finite(v);
    if (n !== undefined) attributes[key] = n;
  };
  put(Attr.event, report.event);
  put(Attr.batteryLevel, battery.level);
  put(Attr.battery, battery.voltage);
  const lat = finite(location.latitude);
  const lng = finite(location.longitude);
  const seconds = finite(location.detected_at);
  const reportTime = typeof root.time === 'string' ? Date.parse(root.time) : NaN;
  const time = seconds !== undefined ? seconds * 1000 : Number.isFinite(reportTime) ? reportTime : undefined;
  if (lat === undefined || lng === undefined || Math.abs(lat) > 90 || Math.abs(lng) > 180 || time === undefined) {
    return Object.keys(attributes).length ? { deviceId, status: 200, records: [{ time, attributes }] } : { deviceId, status: 200 };
  }
  // Polte locates by the LTE network; `confidence` is its accuracy radius in metres.
  const rec: DeviceRecord = { time, valid: true, lat, lng, altitude: finite(location.altitude), precision: finite(location.confidence), lbs: true, attributes };
  return { deviceId, status: 200, records: [rec] };
}

export const protocol: Protocol = {
  name: 'polte',
  defaultPort: 5214,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
