/**
 * SPOT (Globalstar) satellite messengers: the SPOT XML feed pushed by HTTP POST, a `messageList` of
 * `message` elements (`esn`, `messageType`, `timeInGMTSecond`, `latitude`, `longitude`, `batteryState`, ...).
 * One message is one fix, stored under its own `esn`; the first names the request. Answered 200;
 * 400 for a body without messages.
 */
import { Alarm, Attr } from './attributes.ts';
import { DecodeError } from './types.ts';
import type { AttrValue, DecodeContext, DeviceRecord, HttpDecodeResult, HttpRequest, Protocol } from './types.ts';

const MAX_BODY = 256 * 1024;
const MAX_MESSAGES = 500;

/** SPOT message types that are alarms. */
const ALARMS: Record<string, string> = { SOS: Alarm.sos, HELP: Alarm.general, POWER_OFF: Alarm.powerOff };

const field = (xml: string, name: string): string | undefined => {
  const at = xml.indexOf(`<${name}>`);
  if (at < 0) return undefined;
  const end = xml.indexOf(`</${name}>`, at);
  return end < 0 ? undefined : xml.slice(at + name.length + 2, end).trim();
};

function toRecord(xml: string): DeviceRecord | undefined {
  const esn = field(xml, 'esn');
  const lat = Number(field(xml, 'latitude'));
  const lng = Number(field(xml, 'longitude'));
  const seconds = Number(field(xml, 'timeInGMTSecond'));
  if (!esn || esn.length > 64 || !Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180 || !(seconds > 0)) return undefined;
  const attributes: Record<string, AttrValue> = {};
  const type = field(xml, 'messageType');
  if (type) {
    attributes[Attr.event] = type;
    if (ALARMS[type]) attributes[Attr.alarm] = ALARMS[type];
  }
  const battery = field(xml, 'batteryState');
  if (battery) attributes[Attr.status] = battery;
  const altitude = Number(field(xml, 'altitude'));
  const rec: DeviceRecord = { deviceId: esn, time: seconds * 1000, valid: true, lat, lng, attributes };
  if (Number.isFinite(altitude) && field(xml, 'altitude') !== undefined) rec.altitude = altitude;
  return rec;
}

function decodeHttp(req: HttpRequest, _ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) throw new DecodeError('spot: body too large');
  const records: DeviceRecord[] = [];
  const xml = req.body.toString('utf8');
  // indexOf, not a lazy regex: a body of unclosed <message> tags stays linear.
  for (let at = xml.indexOf('<message>'); at >= 0 && records.length < MAX_MESSAGES; ) {
    const end = xml.indexOf('</message>', at);
    if (end < 0) break;
    const rec = toRecord(xml.slice(at + 9, end));
    if (rec) records.push(rec);
    at = xml.indexOf('<message>', end);
  }
  if (!records.length) return { status: 400 };
  return { deviceId: records[0].deviceId, records, status: 200 };
}

export const protocol: Protocol = {
  name: 'spot',
  defaultPort: 5156,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
