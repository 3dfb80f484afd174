/**
 * Hoopo (asset trackers via the Hoopo platform) JSON events over TCP, one object each:
 *   {"deviceId":..., "eventData":{"latitude","longitude","eventType","batteryLevel",...},
 *    "movement":{"Speed":<km/h>}, "eventTime":"<ISO-8601>", ...}
 * Framed by the shared JSON framer. The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { jsonFramer, jsonObject } from './framers.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 16384;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const root = jsonObject(frame, 'hoopo');
  if (typeof root.deviceId !== 'string') return {};
  const deviceId = root.deviceId;
  const event = root.eventData as Record<string, unknown> | undefined;
  if (!event || typeof event !== 'object') return { deviceId };
  const [lat, lng, time] = [event.latitude, event.longitude, Date.parse(String(root.eventTime))];
  if (typeof lat !== 'number' || typeof lng !== 'number' || Math.abs(lat) > 90 || Math.abs(lng) > 180 || !Number.isFinite(time)) throw new DecodeError('hoopo: bad event');
  const rec: DeviceRecord = { time, valid: true, lat, lng, attributes: {} };
  if (typeof event.eventType === 'string') rec.attributes[Attr.event] = event.eventType;
  if (typeof event.batteryLevel === 'number') rec.attributes[Attr.batteryLevel] = event.batteryLevel;
  const speed = (root.movement as Record<string, unknown> | undefined)?.Speed;
  if (typeof speed === 'number' && speed >= 0) rec.speed = speed;
  return { deviceId, records: [rec] };
}

export const protocol: Protocol = {
  name: 'hoopo',
  defaultPort: 5231,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => jsonFramer('hoopo', MAX_FRAME),
  decode,
  commands: [],
};
