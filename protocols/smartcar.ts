/**
 * Smartcar (connected-car API) webhooks: `VEHICLE_STATE` events, one vehicle per POST.
 *
 *   `{ eventType, vehicleId, meta: { deliveredAt }, data: { signals: [{ code, body, meta: { oemUpdatedAt } }] } }`
 *
 * `vehicleId` is the device identifier. Each signal code maps to one field (table below); the fix time
 * is the location signal's `oemUpdatedAt` (else the delivery time). Answered 200; 400 for other bodies.
 */
import { Attr } from './attributes.ts';
import { jsonNumber, jsonObject } from './text.ts';
import { DecodeError } from './types.ts';
import type { AttrValue, DecodeContext, DeviceRecord, HttpDecodeResult, HttpRequest, Protocol } from './types.ts';

const MAX_BODY = 256 * 1024;
type Json = Record<string, unknown>;
const obj = jsonObject;
const finite = jsonNumber;

/** Signal code → attribute, for signals whose body is `{ value }`. */
const VALUE_SIGNALS: Record<string, string> = {
  'tractionbattery-stateofcharge': Attr.batteryLevel,
  'charge-voltage': Attr.power,
  'odometer-traveleddistance': Attr.odometer,
  'fuel-level': Attr.fuelLevel,
};

function decodeHttp(req: HttpRequest, _ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) throw new DecodeError('smartcar: body too large');
  let root: Json;
  try {
    root = obj(JSON.parse(req.body.toString('utf8')));
  } catch {
    return { status: 400 };
  }
  const deviceId = typeof root.vehicleId === 'string' ? root.vehicleId.trim() : '';
  if (!deviceId || deviceId.length > 64) return { status: 400 };
  const signals = obj(root.data).signals;
  const attributes: Record<string, AttrValue> = {};
  let fix: { lat: number; lng: number; time?: number } | undefined;
  for (const s of Array.isArray(signals) ? signals.slice(0, 256) : []) {
    const signal = obj(s);
    const body = obj(signal.body);
    if (signal.code === 'location-preciselocation') {
      const lat = finite(body.latitude);
      const lng = finite(body.longitude);
      if (lat !== undefined && lng !== undefined && Math.abs(lat) <= 90 && Math.abs(lng) <= 180) fix = { lat, lng, time: finite(obj(signal.meta).oemUpdatedAt) };
      continue;
    }
    const key = VALUE_SIGNALS[String(signal.code)];
    const value = finite(body.value);
    // Odometer comes in kilometres; our odometer is metres.
    if (key && value !== undefined) attributes[key] = key === Attr.odometer ? value * 1000 : value;
  }
  const time = fix?.time ?? finite(obj(root.meta).deliveredAt);
  const rec: DeviceRecord = fix ? { time, valid: true, lat: fix.lat, lng: fix.lng, attributes } : { time, attributes };
  return fix || Object.keys(attributes).length ? { deviceId, status: 200, records: [rec] } : { deviceId, status: 200 };
}

export const protocol: Protocol = {
  name: 'smartcar',
  defaultPort: 5262,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
