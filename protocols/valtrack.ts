/**
 * Valtrack devices over HTTP: a JSON body `{"resource":[{devid, etype, lat, lon, vbat, speed, ncsq, ...}]}`,
 * every value a string. The items carry no time: each is a fix at arrival. 0/0 (no fix) is kept as
 * a not-valid fix. Answered 200; 400 for a body without items.
 */
import { Attr } from './attributes.ts';
import { jsonObject } from './text.ts';
import { DecodeError } from './types.ts';
import type { AttrValue, DecodeContext, DeviceRecord, HttpDecodeResult, HttpRequest, Protocol } from './types.ts';

const MAX_BODY = 256 * 1024;
const MAX_ITEMS = 500;

const number = (v: unknown): number | undefined => {
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
};

function toRecord(item: Record<string, unknown>, now: number): DeviceRecord | undefined {
  const deviceId = typeof item.devid === 'string' ? item.devid.trim() : '';
  const lat = number(item.lat);
  const lng = number(item.lon);
  if (!deviceId || deviceId.length > 64 || lat === undefined || lng === undefined || Math.abs(lat) > 90 || Math.abs(lng) > 180) return undefined;
  const attributes: Record<string, AttrValue> = {};
  if (typeof item.etype === 'string' && item.etype) attributes[Attr.event] = item.etype;
  const power = number(item.vbat);
  if (power !== undefined) attributes[Attr.power] = power;
  // `ncsq` is the modem's AT+CSQ answer: signal, bit error rate.
  const csq = typeof item.ncsq === 'string' ? Number(item.ncsq.split(',')[0]) : NaN;
  if (Number.isFinite(csq)) attributes[Attr.rssi] = csq;
  const rec: DeviceRecord = { deviceId, time: now, valid: lat !== 0 || lng !== 0, lat, lng, attributes };
  const speed = number(item.speed);
  if (speed !== undefined) rec.speed = speed;
  return rec;
}

function decodeHttp(req: HttpRequest, ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) throw new DecodeError('valtrack: body too large');
  let root: Record<string, unknown>;
  try {
    root = jsonObject(JSON.parse(req.body.toString('utf8')));
  } catch {
    return { status: 400 };
  }
  const items = Array.isArray(root.resource) ? root.resource.slice(0, MAX_ITEMS) : [];
  const records = items.map((i) => toRecord(jsonObject(i), ctx.now)).filter((r): r is DeviceRecord => r !== undefined);
  if (!records.length) return { status: 400 };
  return { deviceId: records[0].deviceId, records, status: 200 };
}

export const protocol: Protocol = {
  name: 'valtrack',
  defaultPort: 5255,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
