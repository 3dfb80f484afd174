/**
 * Smartcar webhooks (HTTP, API v4): a POST of `{eventType, vehicleId, meta: {deliveredAt}, data: {signals: [...]}}`.
 * VEHICLE_STATE signals: `location-preciselocation` (latitude, longitude; meta.oemUpdatedAt the fix time),
 * `tractionbattery-stateofcharge` (%), `charge-ischarging`, `charge-voltage`, `odometer` (km or miles), `speed`
 * (km/h or mph); other numeric or boolean signals are kept under their code. A VERIFY event is answered
 * `{"challenge": <HMAC-SHA256 of the challenge, hex>}` keyed with the `smartcarManagementToken` setting.
 * Answer: HTTP 200; 400 without identity (or a VERIFY without the token setting).
 */
import { createHmac } from 'node:crypto';
import { Attr } from './attributes.ts';
import { jsonObjectBody, member, numberMember, type JsonObject } from './json-body.ts';
import { DecodeError, type DecodeContext, type DeviceRecord, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const MAX_BODY = 256 * 1024;
const MILE_M = 1609.344;
const KEY = /^[a-z][a-z0-9-]{0,63}$/;

function signal(s: JsonObject, rec: DeviceRecord): void {
  const code = typeof s.code === 'string' ? s.code : '';
  const body = member(s, 'body');
  const value = body.value;
  const n = numberMember(body, 'value');
  const unit = typeof body.unit === 'string' ? body.unit.toLowerCase() : '';
  const a = rec.attributes;
  switch (code) {
    case 'location-preciselocation': {
      const [lat, lng] = [numberMember(body, 'latitude'), numberMember(body, 'longitude')];
      if (lat === undefined || lng === undefined || Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('smartcar: bad location');
      Object.assign(rec, { valid: true, lat, lng });
      const t = numberMember(member(s, 'meta'), 'oemUpdatedAt');
      if (t !== undefined) rec.time = t;
      return;
    }
    case 'tractionbattery-stateofcharge':
      if (n !== undefined) a[Attr.batteryLevel] = n;
      return;
    case 'charge-ischarging':
      if (typeof value === 'boolean') a[Attr.charge] = value;
      return;
    case 'charge-voltage':
      if (n !== undefined) a.chargeVoltage = n;
      return;
    case 'odometer':
      if (n !== undefined) a[Attr.odometer] = unit === 'miles' ? n * MILE_M : n * 1000;
      return;
    case 'speed':
      if (n !== undefined) rec.speed = unit === 'miles_per_hour' ? (n * MILE_M) / 1000 : n;
      return;
    default:
      if (!KEY.test(code)) return;
      if (n !== undefined) a[code] = n;
      else if (typeof value === 'boolean') a[code] = value;
  }
}

function decodeHttp(req: HttpRequest, ctx: DecodeContext): HttpDecodeResult {
  const j = jsonObjectBody(req.body, MAX_BODY, 'smartcar');
  if (!j) return { status: 400 };
  const data = member(j, 'data');
  if (j.eventType === 'VERIFY') {
    const token = ctx.config.smartcarManagementToken;
    if (typeof token !== 'string' || typeof data.challenge !== 'string') return { status: 400 };
    return { status: 200, body: JSON.stringify({ challenge: createHmac('sha256', token).update(data.challenge).digest('hex') }) };
  }
  if (j.eventType !== 'VEHICLE_STATE') return { status: 200, body: '' };
  const id = j.vehicleId;
  if (typeof id !== 'string' || !id || id.length > 128) return { status: 400 };
  const rec: DeviceRecord = { time: numberMember(member(j, 'meta'), 'deliveredAt') ?? ctx.now, attributes: {} };
  const signals = Array.isArray(data.signals) ? data.signals.slice(0, 256) : [];
  for (const s of signals) if (s && typeof s === 'object') signal(s as JsonObject, rec);
  return { deviceId: id, records: [rec], status: 200, body: '' };
}

export const protocol: Protocol = {
  name: 'smartcar',
  defaultPort: 5262,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
