/**
 * Outsafe HTTP: a JSON POST `{"device":..,"latitude","longitude","altitude","heading","rssi","time",
 * "data":{"cmd",..}}`. `time` may be null: the fix then takes the time of arrival. 200 after the commit,
 * 400 for a body without a device or a position.
 */
import { Attr } from './attributes.ts';
import { jsonObject } from './framers.ts';
import { type DecodeContext, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const MAX_BODY = 65536;
const number = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function decodeHttp(req: HttpRequest, ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) return { status: 413 };
  const root = jsonObject(req.body, 'outsafe');
  const deviceId = typeof root.device === 'string' ? root.device.trim() : '';
  const [lat, lng] = [number(root.latitude), number(root.longitude)];
  if (!deviceId || deviceId.length > 64 || lat === undefined || lng === undefined || Math.abs(lat) > 90 || Math.abs(lng) > 180) return { status: 400 };
  const time = number(root.time);
  const attributes: Record<string, string | number> = {};
  const rssi = number(root.rssi);
  if (rssi !== undefined) attributes[Attr.rssi] = rssi;
  const cmd = (root.data as Record<string, unknown> | undefined)?.cmd;
  if (typeof cmd === 'string' && cmd) attributes[Attr.event] = cmd;
  return {
    deviceId,
    records: [{ time: time !== undefined ? time * 1000 : ctx.now, valid: true, lat, lng, altitude: number(root.altitude), course: (number(root.heading) ?? 0) % 360, attributes }],
    status: 200,
  };
}

export const protocol: Protocol = {
  name: 'outsafe',
  defaultPort: 5200,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
