/**
 * RFTrack devices over HTTP: `POST /deviceDataUpload.do` with a form body whose values are partly JSON.
 *
 *   `i=<imei>&t=<ms>&gps={"y":<lat>,"x":<lon>,"t":<fix ms>,"a":<accuracy m>,...}&gsm={"c":<mcc>,"n":<mnc>,
 *    "b":[{"l":<lac>,"c":<cid>,"b":<signal>}]}&wifi=[{"m":<mac>,"l":<rssi>,"t":<ssid>}]&dbm=<rssi>&bat=<mV>&bar=<hPa>&v=<version>`
 *
 * Answered 200; 400 without an IMEI. A report without GPS keeps its cells and Wi-Fi for network location.
 */
import { Attr } from './attributes.ts';
import { jsonNumber, jsonObject, wifiAttribute } from './text.ts';
import type { AttrValue, Cell, DecodeContext, DeviceRecord, HttpDecodeResult, HttpRequest, Protocol } from './types.ts';

const MAX_BODY = 16 * 1024;

function json(value: string | null): unknown {
  if (!value) return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

function cells(gsm: Record<string, unknown>): Cell[] {
  const mcc = jsonNumber(gsm.c);
  const mnc = jsonNumber(gsm.n);
  if (mcc === undefined || mnc === undefined || !Array.isArray(gsm.b)) return [];
  const out: Cell[] = [];
  for (const item of gsm.b.slice(0, 16)) {
    const c = jsonObject(item);
    const lac = jsonNumber(c.l);
    const cid = jsonNumber(c.c);
    if (lac !== undefined && cid !== undefined) out.push({ mcc, mnc, lac, cid, rssi: jsonNumber(c.b) });
  }
  return out;
}

function decodeHttp(req: HttpRequest, ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) return { status: 400 };
  const q = req.uri.indexOf('?');
  const form = new URLSearchParams(req.body.length ? req.body.toString('utf8') : q >= 0 ? req.uri.slice(q + 1) : '');
  const deviceId = form.get('i')?.trim();
  if (!deviceId || deviceId.length > 64) return { status: 400 };
  const gps = jsonObject(json(form.get('gps')));
  const wifi = json(form.get('wifi'));
  const attributes: Record<string, AttrValue> = {};
  const rssi = Number(form.get('dbm') ?? NaN);
  if (Number.isFinite(rssi)) attributes[Attr.rssi] = rssi;
  const battery = Number(form.get('bat') ?? NaN);
  if (Number.isFinite(battery)) attributes[Attr.battery] = battery / 1000;
  const pressure = Number(form.get('bar') ?? NaN);
  if (Number.isFinite(pressure)) attributes.pressure = pressure;
  const version = form.get('v');
  if (version) attributes.versionFw = version;
  if (Array.isArray(wifi)) {
    const points = wifi.slice(0, 32).map(jsonObject).filter((w) => typeof w.m === 'string');
    if (points.length) attributes.wifi = wifiAttribute(points.map((w) => ({ mac: String(w.m).replace(/-/g, ':'), rssi: jsonNumber(w.l) })));
  }
  const lat = jsonNumber(gps.y);
  const lng = jsonNumber(gps.x);
  const sent = Number(form.get('t') ?? NaN);
  const rec: DeviceRecord = { time: jsonNumber(gps.t) ?? (Number.isFinite(sent) ? sent : ctx.now), cells: cells(jsonObject(json(form.get('gsm')))), attributes };
  if (lat !== undefined && lng !== undefined && Math.abs(lat) <= 90 && Math.abs(lng) <= 180) {
    Object.assign(rec, { valid: true, lat, lng, precision: jsonNumber(gps.a) });
  }
  return { deviceId, status: 200, records: [rec] };
}

export const protocol: Protocol = {
  name: 'rftrack',
  defaultPort: 5245,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
