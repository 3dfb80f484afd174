/**
 * Dragino LoRaWAN trackers (LGT-92, TrackerD, ...) through The Things Stack: the network server's
 * uplink webhook JSON, with the payload already decoded by the device's payload formatter.
 *
 *   `{ end_device_ids: { dev_eui }, received_at, uplink_message: { decoded_payload: { Latitude, Longitude,
 *      BatV, Tem, Hum, ALARM_status, ... }, rx_metadata: [{ rssi, snr }] } }`
 *
 * `dev_eui` is the device identifier. A tracker without a fix reports 0/0, kept as a not-valid fix.
 * Answered 200; 400 for other bodies.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { jsonNumber, jsonObject } from './text.ts';
import { DecodeError } from './types.ts';
import type { AttrValue, DecodeContext, HttpDecodeResult, HttpRequest, Protocol } from './types.ts';

const MAX_BODY = 64 * 1024;

function decodeHttp(req: HttpRequest, _ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) throw new DecodeError('dragino: body too large');
  let root: Record<string, unknown>;
  try {
    root = jsonObject(JSON.parse(req.body.toString('utf8')));
  } catch {
    return { status: 400 };
  }
  const ids = jsonObject(root.end_device_ids);
  const deviceId = typeof ids.dev_eui === 'string' ? ids.dev_eui.trim() : '';
  if (!deviceId || deviceId.length > 64) return { status: 400 };
  const uplink = jsonObject(root.uplink_message);
  const p = jsonObject(uplink.decoded_payload);
  const time = Date.parse(String(root.received_at ?? uplink.received_at ?? ''));
  const lat = jsonNumber(p.Latitude);
  const lng = jsonNumber(p.Longitude);
  if (!Number.isFinite(time) || lat === undefined || lng === undefined || Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId, status: 200 };
  const attributes: Record<string, AttrValue> = {};
  const put = (key: string, v: unknown) => {
    const n = jsonNumber(v);
    if (n !== undefined) attributes[key] = n;
  };
  put(Attr.battery, p.BatV);
  put(indexed.temp(1), p.Tem);
  put('humidity', p.Hum);
  put(Attr.rssi, jsonObject(Array.isArray(uplink.rx_metadata) ? uplink.rx_metadata[0] : undefined).rssi);
  if (p.ALARM_status === 'TRUE' || p.ALARM_status === true) attributes[Attr.alarm] = Alarm.sos;
  return { deviceId, status: 200, records: [{ time, valid: lat !== 0 || lng !== 0, lat, lng, attributes }] };
}

export const protocol: Protocol = {
  name: 'dragino',
  defaultPort: 5253,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
