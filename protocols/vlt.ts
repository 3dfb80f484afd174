/**
 * VLT (AIS-140 style, India) over HTTP: a form POST with `vltdata=<type 3><imei 15>...`.
 *   NRM one record; BTH `<count 3>` records of 78 characters each. A record:
 *   `<alert id 2><H history|L live><valid 0|1><ddmmyy><hhmmss><lat ddd.dddddd><N|S><lon ddd.dddddd><E|W><mcc 3>
 *    <mnc, x-padded><lac hex 4><cid 9><km/h ddd.dd><course ddd.dd><satellites 2><hdop 2><rssi 2><ignition><charging>
 *    <mode H|M|S>`
 * Answer: HTTP 200; 400 without `vltdata`.
 */
import { Attr } from './attributes.ts';
import { utc } from './text.ts';
import { DecodeError, type DecodeContext, type DeviceRecord, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const MAX_BODY = 64 * 1024;
const RECORD_LENGTH = 78;
const RECORD =
  /^(\d\d)([HL])([01])(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d{3}\.\d{6})([NS])(\d{3}\.\d{6})([EW])(\d{3})(x*[0-9]+)([0-9A-Fa-f]{4})(\d{9})(\d{3}\.\d{2})(\d{3}\.\d{2})(\d\d)(\d\d)(\d\d)([01])([01])([HMS])/;

function record(text: string): DeviceRecord {
  const m = RECORD.exec(text);
  if (!m) throw new DecodeError('vlt: bad record');
  const [, alert, history, valid, dd, mo, yy, hh, mi, ss, lat, ns, lng, ew, mcc, mnc, lac, cid, speed, course, sats, hdop, rssi, ignition, charging, mode] = m;
  const rec: DeviceRecord = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: valid === '1',
    lat: Number(lat) * (ns === 'S' ? -1 : 1),
    lng: Number(lng) * (ew === 'W' ? -1 : 1),
    speed: Number(speed),
    course: Number(course) % 360,
    satellites: Number(sats),
    hdop: Number(hdop),
    cells: [{ mcc: Number(mcc), mnc: Number(mnc.replace(/x/g, '')), lac: parseInt(lac, 16), cid: Number(cid), rssi: Number(rssi) }],
    attributes: { [Attr.event]: Number(alert), [Attr.ignition]: ignition === '1', [Attr.charge]: charging === '1', [Attr.motion]: mode === 'M' },
  };
  if (history === 'H') rec.attributes[Attr.archive] = true;
  if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('vlt: coordinates out of range');
  return rec;
}

function decodeHttp(req: HttpRequest, _ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) throw new DecodeError('vlt: body too large');
  const data = new URLSearchParams(req.body.toString('latin1')).get('vltdata');
  if (!data || data.length < 18) return { status: 400 };
  const type = data.slice(0, 3);
  const imei = data.slice(3, 18);
  const result: HttpDecodeResult = { deviceId: imei, status: 200, body: '' };
  if (type === 'NRM') return { ...result, records: [record(data.slice(18))] };
  if (type === 'BTH') {
    const count = Number(data.slice(18, 21));
    if (!Number.isInteger(count)) throw new DecodeError('vlt: bad count');
    const records: DeviceRecord[] = [];
    for (let i = 0, at = 21; i < count; i++, at += RECORD_LENGTH) records.push(record(data.slice(at, at + RECORD_LENGTH)));
    return { ...result, records };
  }
  return result;
}

export const protocol: Protocol = {
  name: 'vlt',
  defaultPort: 5246,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
