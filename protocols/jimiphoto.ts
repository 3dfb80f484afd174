/**
 * Jimi (Concox) camera uploads over HTTP: a `multipart/form-data` POST with the part `file` (the photo or
 * video, its file name giving the extension) and `callbackBody`, a JSON object `{imei, alarmTime (unix s),
 * lat, lng (strings, may be empty), mimeType, businessType, eventType, instructionId, ...}`.
 * The file becomes the record's `image` (or `video` for a `video/...` mime type); the record is placed at
 * `lat`/`lng` when they are given. Answer: 200 `{"code":200,"message":"the high success"}` once stored;
 * 400 `{"code":400,"message":"missing field"}` without the file or the callback body.
 */
import { multipartParts } from './http-params.ts';
import { jsonObjectBody } from './json-body.ts';
import type { DecodeContext, DeviceRecord, HttpDecodeResult, HttpRequest, Protocol } from './types.ts';

const MAX_BODY = 32 * 1024 * 1024;
const OK = JSON.stringify({ code: 200, message: 'the high success' });
const MISSING = { status: 400, body: JSON.stringify({ code: 400, message: 'missing field' }) };

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.length <= 256 ? v : undefined);

function decodeHttp(req: HttpRequest, ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) return { status: 413 };
  const parts = multipartParts(req.body, req.headers['content-type']);
  const file = parts?.find((p) => p.name === 'file' && p.filename !== undefined);
  const callback = parts?.find((p) => p.name === 'callbackBody');
  if (!file || !callback) return MISSING;
  const body = jsonObjectBody(callback.data, 65536, 'jimiphoto');
  const imei = text(body?.imei);
  if (!body || !imei || !/^\w{1,32}$/.test(imei)) return MISSING;
  const rec: DeviceRecord = { attributes: {} };
  rec.time = typeof body.alarmTime === 'number' && Number.isFinite(body.alarmTime) ? body.alarmTime * 1000 : ctx.now;
  const [lat, lng] = [Number(text(body.lat) || NaN), Number(text(body.lng) || NaN)];
  if (Math.abs(lat) <= 90 && Math.abs(lng) <= 180) Object.assign(rec, { valid: true, lat, lng });
  const attribute = (text(body.mimeType) ?? '').startsWith('video/') ? 'video' : 'image';
  rec.attributes[attribute] = '';
  for (const key of ['businessType', 'eventType', 'instructionId']) {
    const v = text(body[key]);
    if (v !== undefined) rec.attributes[key] = v;
  }
  const dot = file.filename!.lastIndexOf('.');
  const ext = dot >= 0 ? file.filename!.slice(dot + 1).toLowerCase() : '';
  const extension = /^[a-z0-9]{1,8}$/.test(ext) ? ext : attribute === 'video' ? 'mp4' : 'jpg';
  return { deviceId: imei, records: [rec], media: [{ record: 0, attribute, data: file.data, extension }], status: 200, body: OK };
}

export const protocol: Protocol = {
  name: 'jimiphoto',
  defaultPort: 5267,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
