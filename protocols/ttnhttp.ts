/**
 * The Things Network / The Things Stack webhook (HTTP JSON POST, `Content-Type: application/json`): an
 * uplink message whose `end_device_ids.device_id` names the device and whose
 * `uplink_message.decoded_payload` (the application's payload formatter output) carries the values:
 * `latitude`, `longitude`, `altitude`, `accuracy`, `sats`, `hdop`, `speed` (knots), `heading`, `time`,
 * `gps_<n>` objects (`latitude`, `longitude`, `altitude`), `wifi` (`{mac: {rssi, channel}}`), and any other
 * number, string or boolean kept under its own name (`temperature_<n>` as `temp<n+1>`). The time is
 * the payload's `time`, else the first gateway's reception time, else `received_at`. Without a location
 * the record takes the last known fix, not valid.
 * Answers: 200; 400 for a body that is not a JSON uplink with a device id, or not sent as JSON.
 */
import { indexed } from './attributes.ts';
import { isoTime, jsonObjectBody, member, numberMember, type JsonObject } from './json-body.ts';
import { fixOrLast, type LastFix } from './last-fix.ts';
import { knotsToKmh } from './binary.ts';
import { wifiAttribute } from './text.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DeviceRecord, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const MAX_BODY = 256 * 1024;
const MAX_ATTRIBUTES = 64;

function location(rec: DeviceRecord, o: JsonObject): void {
  const [lat, lng] = [numberMember(o, 'latitude'), numberMember(o, 'longitude')];
  if (lat !== undefined) rec.lat = lat;
  if (lng !== undefined) rec.lng = lng;
  const altitude = numberMember(o, 'altitude');
  if (altitude !== undefined) rec.altitude = altitude;
}

function wifi(o: JsonObject): string {
  return wifiAttribute(
    Object.entries(o)
      .filter(([mac]) => /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i.test(mac))
      .map(([mac, v]) => ({ mac: mac.replace(/-/g, ':'), rssi: numberMember(v && typeof v === 'object' ? (v as JsonObject) : {}, 'rssi') })),
  );
}

/** Any other payload value under its own name (Cayenne-style `temperature_<n>` in the shared vocabulary). */
function other(a: Record<string, AttrValue>, key: string, v: unknown): void {
  if (Object.keys(a).length >= MAX_ATTRIBUTES || key.length > 64) return;
  const temp = /^temperature_(\d{1,2})$/.exec(key);
  const name = temp ? indexed.temp(Number(temp[1]) + 1) : key;
  if (typeof v === 'number' && Number.isFinite(v)) a[name] = v;
  else if (typeof v === 'boolean') a[name] = v;
  else if (typeof v === 'string') a[name] = v.slice(0, 256);
}

function decodeHttp(req: HttpRequest, ctx: DecodeContext): HttpDecodeResult {
  if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) return { status: 400 };
  const root = jsonObjectBody(req.body, MAX_BODY, 'ttnhttp');
  const deviceId = member(root, 'end_device_ids').device_id;
  if (!root || typeof deviceId !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(deviceId) || !('uplink_message' in root)) return { status: 400 };
  const message = member(root, 'uplink_message');
  const payload = message.decoded_payload;
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return { deviceId, status: 200 };
  const rx = Array.isArray(message.rx_metadata) ? (message.rx_metadata[0] as JsonObject | undefined) : undefined;
  const rec: DeviceRecord = { time: isoTime(rx?.time) ?? isoTime(message.received_at), attributes: {} };
  const a = rec.attributes;
  for (const [key, v] of Object.entries(payload as JsonObject)) {
    if (key.startsWith('gps_')) {
      if (v && typeof v === 'object' && !Array.isArray(v)) location(rec, v as JsonObject);
      continue;
    }
    const n = typeof v === 'number' && Number.isFinite(v) ? v : undefined;
    switch (key) {
      case 'latitude':
      case 'longitude':
      case 'altitude':
        location(rec, { [key]: v });
        break;
      case 'accuracy':
        if (n !== undefined) rec.precision = n;
        break;
      case 'sats':
        if (n !== undefined) rec.satellites = n;
        break;
      case 'hdop':
        if (n !== undefined) rec.hdop = n;
        break;
      case 'speed':
        if (n !== undefined && n >= 0) rec.speed = knotsToKmh(n);
        break;
      case 'heading':
        if (n !== undefined && n >= 0) rec.course = n % 360;
        break;
      case 'time':
        rec.time = isoTime(v) ?? rec.time;
        break;
      case 'wifi':
        if (v && typeof v === 'object' && !Array.isArray(v)) a.wifi = wifi(v as JsonObject);
        break;
      default:
        other(a, key, v);
    }
  }
  if (rec.lat !== undefined && rec.lng !== undefined) {
    if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('ttnhttp: coordinates out of range');
    rec.valid = true;
  }
  fixOrLast(ctx.session as { last?: LastFix }, rec, ctx.now);
  if (a.wifi === '') delete a.wifi;
  return { deviceId, records: [rec], status: 200 };
}

export const protocol: Protocol = {
  name: 'ttnhttp',
  defaultPort: 5261,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
