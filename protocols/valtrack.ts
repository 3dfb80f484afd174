/**
 * Valtrack HTTP: a JSON POST `{"resource":[{"devid","etype","lat","lon","vbat","speed",...},...]}` with
 * string values; each entry is stored under the device its `devid` names, at the time of arrival (the
 * entries carry no time). Answered 200.
 */
import { Attr } from './attributes.ts';
import { jsonObject } from './framers.ts';
import { DecodeError, type DecodeContext, type DeviceRecord, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const MAX_BODY = 1048576;

function entry(e: unknown, now: number): DeviceRecord | undefined {
  if (!e || typeof e !== 'object') return undefined;
  const m = e as Record<string, unknown>;
  const [lat, lng] = [Number(m.lat), Number(m.lon)];
  if (typeof m.devid !== 'string' || !m.devid || !(Math.abs(lat) <= 90 && Math.abs(lng) <= 180)) return undefined;
  const rec: DeviceRecord = { deviceId: m.devid, time: now, valid: true, lat, lng, attributes: {} };
  if (m.speed !== '' && Number(m.speed) >= 0) rec.speed = Number(m.speed);
  if (Number.isFinite(Number(m.vbat)) && m.vbat !== '') rec.attributes[Attr.power] = Number(m.vbat);
  if (typeof m.etype === 'string') rec.attributes[Attr.event] = m.etype;
  return rec;
}

function decodeHttp(req: HttpRequest, ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) throw new DecodeError('valtrack: body too large');
  const root = jsonObject(req.body, 'valtrack');
  const list = Array.isArray(root.resource) ? root.resource.slice(0, 1000) : [];
  const records = list.map((e) => entry(e, ctx.now)).filter((r): r is DeviceRecord => !!r);
  return { deviceId: records[0]?.deviceId, records, status: 200 };
}

export const protocol: Protocol = {
  name: 'valtrack',
  defaultPort: 5255,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
