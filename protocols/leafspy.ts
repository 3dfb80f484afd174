/**
 * LeafSpy (Nissan Leaf app) HTTP: GET (or form POST) `?user=..&pass=<device>&Lat&Long&Elv&SOC&Odo&RPM&
 * ChrgMode&...`. `pass` names the device (the app's only free field besides the user). Values without a
 * fixed meaning are kept under their own names. Answered `"status":"0"` (what the app expects) or 400.
 */
import { Attr } from './attributes.ts';
import { requestParams } from './http-params.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { type AttrValue, type DecodeContext, type DeviceRecord, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

/** Parameters with a meaning of their own: how each one sets the record. */
const FIELDS: Record<string, (v: string, rec: DeviceRecord) => void> = {
  Lat: (v, rec) => (rec.lat = Number(v)),
  Long: (v, rec) => (rec.lng = Number(v)),
  Elv: (v, rec) => (rec.altitude = Number(v)),
  // the Leaf's motor turns 63 times per km/h: the app sends no speed of its own
  RPM: (v, rec) => {
    rec.attributes[Attr.rpm] = Number(v);
    rec.speed = Math.max(0, Number(v) / 63);
  },
  SOC: (v, rec) => (rec.attributes[Attr.batteryLevel] = Number(v)),
  user: (v, rec) => (rec.attributes[Attr.driverUniqueId] = v),
  ChrgMode: (v, rec) => (rec.attributes[Attr.charge] = Number(v) !== 0),
  Odo: (v, rec) => (rec.attributes.obdOdometer = Number(v) * 1000),
  VIN: (v, rec) => (rec.attributes[Attr.vin] = v),
};

const value = (v: string): AttrValue => (v === 'true' ? true : v === 'false' ? false : /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v);

function decodeHttp(req: HttpRequest, ctx: DecodeContext): HttpDecodeResult {
  const params = requestParams(req, 'leafspy');
  const deviceId = params.get('pass')?.trim();
  if (!deviceId || deviceId.length > 64) return { status: 400 };
  const rec: DeviceRecord = { time: ctx.now, valid: true, attributes: {} };
  let n = 0;
  for (const [key, v] of params) {
    if (++n > 64) break;
    if (FIELDS[key]) FIELDS[key](v, rec);
    else if (key !== 'pass' && /^[A-Za-z][A-Za-z0-9]{0,31}$/.test(key)) rec.attributes[key] = value(v);
  }
  const session = ctx.session as { last?: LastFix };
  if (!Number.isFinite(rec.lat) || !Number.isFinite(rec.lng) || Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180 || (rec.lat === 0 && rec.lng === 0)) {
    delete rec.lat;
    delete rec.lng;
    withLastFix(rec, session);
  } else rememberFix(session, rec);
  return { deviceId, records: [rec], status: 200, body: '"status":"0"' };
}

export const protocol: Protocol = {
  name: 'leafspy',
  defaultPort: 5193,
  transports: ['http'],
  maxFrameSize: 65536,
  decodeHttp,
};
