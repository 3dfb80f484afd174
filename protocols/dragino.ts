/**
 * Dragino LoRaWAN trackers through The Things Stack (HTTP webhook): a POST of an uplink message whose
 * `end_device_ids.device_id` names the device and whose `uplink_message.decoded_payload` (the Dragino payload
 * formatter's output) carries `Latitude`, `Longitude`, `BatV`, `Hum`, `Tem`, `ALARM_status`; the time is
 * `uplink_message.received_at`. A 0,0 position (no fix) is kept as not valid. Answer: HTTP 200; 400 without identity.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { isoTime, jsonObjectBody, member, numberMember } from './json-body.ts';
import { DecodeError, type DecodeContext, type DeviceRecord, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const MAX_BODY = 256 * 1024;

function decodeHttp(req: HttpRequest, ctx: DecodeContext): HttpDecodeResult {
  const j = jsonObjectBody(req.body, MAX_BODY, 'dragino');
  const id = member(j, 'end_device_ids').device_id;
  if (!j || typeof id !== 'string' || !id || id.length > 128) return { status: 400 };
  const message = member(j, 'uplink_message');
  const d = member(message, 'decoded_payload');
  const rec: DeviceRecord = { time: isoTime(message.received_at) ?? ctx.now, attributes: {} };
  const [lat, lng] = [numberMember(d, 'Latitude'), numberMember(d, 'Longitude')];
  if (lat !== undefined && lng !== undefined) {
    if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('dragino: coordinates out of range');
    Object.assign(rec, { lat, lng, valid: lat !== 0 || lng !== 0 });
  }
  const a = rec.attributes;
  const [hum, bat, tem] = [numberMember(d, 'Hum'), numberMember(d, 'BatV'), numberMember(d, 'Tem')];
  if (hum !== undefined) a.humidity = hum;
  if (bat !== undefined) a[Attr.battery] = bat;
  if (tem !== undefined) a[indexed.temp(1)] = tem;
  if (String(d.ALARM_status).toLowerCase() === 'true') a[Attr.alarm] = Alarm.sos;
  return { deviceId: id, records: [rec], status: 200, body: '' };
}

export const protocol: Protocol = {
  name: 'dragino',
  defaultPort: 5253,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
