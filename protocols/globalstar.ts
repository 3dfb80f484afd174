/**
 * Globalstar SmartOne / SPOT trackers through the Globalstar data service (HTTP POST), in two forms:
 *   XML `<stuMessages messageID=".."><stuMessage><esn>..</esn><unixTime>..</unixTime><payload>0x..</payload>...`
 *     The 9-byte payload: `u8 flags | u24 lat (x 90 / 2^23, above 90 means negative) | u24 lon (x 180 / 2^23) | 2 bytes`.
 *     Standard units: flags bits 0-1 type, bit 2 replace battery, bit 3 no fix; type 0 carries inputs (low 4 bits)
 *     and a byte with vibration (bit 4) and motion (bit 6). AtlasTrax (model setting): bit 0 type, bits 1-2 inputs
 *     (active low), bit 3 charging (active low), bit 4 vibration, bits 5-7 course / 45; then km/h (0xFF: no fix)
 *     and a byte whose bit 7 asks for a battery replacement.
 *     Answered with an XML `stuResponseMsg` (state pass, "Store OK") naming the request's messageID.
 *   JSON `{entry: {devices: [{deviceIdentify: {esn, unixTime}, gpsCoordinate: {latitude, longitude}, deviceInfo}]}}`,
 *     answered with an empty 200. A device entry without coordinates takes the last fix (0,0, not valid, before any).
 * Each record names its device (one request can carry several).
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { jsonObjectBody, member, type JsonObject } from './json-body.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { DecodeError, type DecodeContext, type DeviceRecord, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const MAX_BODY = 1024 * 1024;
const MAX_MESSAGES = 1000;
const TAGS = Object.fromEntries(['esn', 'unixTime', 'payload'].map((name) => [name, new RegExp(`<${name}\\b[^>]*>([^<]*)</${name}>`)]));
const tag = (xml: string, name: 'esn' | 'unixTime' | 'payload'): string | undefined => TAGS[name].exec(xml)?.[1]?.trim();
const MESSAGE = /<stuMessage>([\s\S]*?)<\/stuMessage>/g;
const MESSAGE_ID = /<stuMessages\b[^>]*\bmessageID="([0-9A-Za-z]*)"/;

function coordinate(raw: number, scale: number, limit: number): number {
  const v = (raw * scale) / 2 ** 23;
  return v > limit ? v - 2 * limit : v;
}

function xmlRecord(payload: Buffer, rec: DeviceRecord, atlas: boolean): boolean {
  if (payload.length < 7) throw new DecodeError('globalstar: short payload');
  const flags = payload[0];
  const a = rec.attributes;
  let type: number;
  if (atlas) {
    type = flags & 0x01;
    rec.valid = true;
    a[indexed.in(1)] = !(flags & 0x02);
    a[indexed.in(2)] = !(flags & 0x04);
    a[Attr.charge] = !(flags & 0x08);
    if (flags & 0x10) a[Attr.alarm] = Alarm.vibration;
    rec.course = (flags >> 5) * 45;
  } else {
    type = flags & 0x03;
    if (flags & 0x04) a.batteryReplace = true;
    rec.valid = !(flags & 0x08);
  }
  rec.lat = coordinate(payload.readUIntBE(1, 3), 90, 90);
  rec.lng = coordinate(payload.readUIntBE(4, 3), 180, 180);
  if (atlas) {
    if (payload.length < 9) throw new DecodeError('globalstar: short payload');
    if (payload[7] === 0xff) return false; // no fix
    rec.speed = payload[7];
    a.batteryReplace = (payload[8] & 0x80) !== 0;
  } else if (type === 0 && payload.length >= 9) {
    a[Attr.input] = payload[7] & 0x0f;
    if (payload[8] & 0x10) a[Attr.alarm] = Alarm.vibration;
    a[Attr.motion] = (payload[8] & 0x40) !== 0;
  }
  return true;
}

function xmlAnswer(correlation: string, now: number): string {
  const d = new Date(now);
  const two = (n: number) => String(n).padStart(2, '0');
  const stamp = `${two(d.getUTCDate())}/${two(d.getUTCMonth() + 1)}/${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} GMT`;
  return (
    '<?xml version="1.0" encoding="UTF-8"?><stuResponseMsg xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
    `xsi:noNamespaceSchemaLocation="http://cody.glpconnect.com/XSD/StuResponse_Rev1_0.xsd" deliveryTimeStamp="${stamp}" ` +
    `messageID="00000000000000000000000000000000" correlationID="${correlation}"><state>pass</state><stateMessage>Store OK</stateMessage></stuResponseMsg>`
  );
}

function decodeXml(text: string, ctx: DecodeContext): HttpDecodeResult {
  const correlation = MESSAGE_ID.exec(text)?.[1] ?? '';
  const atlas = String(ctx.config.modelOverride ?? '').toLowerCase() === 'atlastrax';
  const records: DeviceRecord[] = [];
  let n = 0;
  for (const [, body] of text.matchAll(MESSAGE)) {
    if (++n > MAX_MESSAGES) break;
    const esn = tag(body, 'esn');
    const time = Number(tag(body, 'unixTime'));
    const payload = tag(body, 'payload') ?? '';
    if (!esn || !Number.isFinite(time) || !/^0x([0-9A-Fa-f]{2})+$/.test(payload)) continue;
    const rec: DeviceRecord = { deviceId: esn, time: time * 1000, attributes: {} };
    if (xmlRecord(Buffer.from(payload.slice(2), 'hex'), rec, atlas)) records.push(rec);
  }
  return { deviceId: records[0]?.deviceId, records, status: 200, body: xmlAnswer(correlation, ctx.now) };
}

function decodeJson(j: JsonObject, ctx: DecodeContext): HttpDecodeResult {
  const devices = member(j, 'entry').devices;
  if (!Array.isArray(devices)) return { status: 400 };
  const holder = ctx.session as { last?: LastFix };
  const records: DeviceRecord[] = [];
  for (const d of devices.slice(0, MAX_MESSAGES) as JsonObject[]) {
    const identify = member(d, 'deviceIdentify');
    const info = member(d, 'deviceInfo');
    const gps = member(d, 'gpsCoordinate');
    if (typeof identify.esn !== 'string' || typeof identify.unixTime !== 'number') continue;
    const rec: DeviceRecord = { deviceId: identify.esn, time: identify.unixTime * 1000, attributes: {} };
    const [lat, lng] = [Number(gps.latitude), Number(gps.longitude)];
    if (gps.latitude !== '' && gps.longitude !== '' && Number.isFinite(lat) && Number.isFinite(lng) && Math.abs(lat) <= 90 && Math.abs(lng) <= 180) {
      Object.assign(rec, { valid: info.gpsDataValid === 'Valid', lat, lng });
      rememberFix(holder, rec);
    } else {
      withLastFix(rec, holder);
      rec.time = identify.unixTime * 1000;
      if (rec.lat === undefined) Object.assign(rec, { valid: false, lat: 0, lng: 0 });
    }
    if (info.batteryStatus === 'Low') rec.attributes[Attr.alarm] = Alarm.lowBattery;
    records.push(rec);
  }
  return { deviceId: records[0]?.deviceId, records, status: 200, body: '' };
}

function decodeHttp(req: HttpRequest, ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) throw new DecodeError('globalstar: body too large');
  const text = req.body.toString('utf8').trimStart();
  if (text.startsWith('<')) return decodeXml(text, ctx);
  const j = jsonObjectBody(req.body, MAX_BODY, 'globalstar');
  return j ? decodeJson(j, ctx) : { status: 400 };
}

export const protocol: Protocol = {
  name: 'globalstar',
  defaultPort: 5185,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
