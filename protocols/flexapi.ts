/**
 * FlexAPI (InHand VT3xx vehicle gateways): one line per message, `$<json><2-char checksum>`, where the
 * JSON is `{"topic":"v1/<client id>/<group>/info","payload":{"<group>.<key>":value,...}}`.
 * Groups: `gnss` (fix), `cellular1` (modem, serving cell), `obd`, `motion` (accelerometer, gyro),
 * `io` (inputs, outputs, ignition), `sysinfo`, `summary` (all of them) and `event/notice` `DI_CHG`.
 * Records without a fix of their own carry the last known one. The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { delimitedFramer } from './text.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 5120;
type Payload = Record<string, unknown>;
type Attrs = Record<string, AttrValue>;

const number = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Payload key -> attribute and conversion, for the plain values of each group. */
const VALUES: Array<[string, string, (v: unknown) => AttrValue | undefined]> = [
  ['modem1.imei', 'imei', text],
  ['modem1.imsi', 'imsi', text],
  ['modem1.iccid', Attr.iccid, text],
  ['modem1.rssi', Attr.rssi, number],
  ['obd.speed', Attr.obdSpeed, number],
  ['obd.odo', 'obdOdometer', number],
  ['obd.rpm', Attr.rpm, number],
  ['obd.vin', Attr.vin, text],
  ['obd.f_lvl', Attr.fuelLevel, number],
  ['obd.e_load', Attr.engineLoad, number],
  ['obd.c_temp', Attr.coolantTemp, number],
  ['obd.t_pos', Attr.throttle, number],
  ['obd.b_volt', Attr.power, number],
  ['motion.ax', 'ax', number],
  ['motion.ay', 'ay', number],
  ['motion.az', 'az', number],
  ['motion.gx', 'gx', number],
  ['motion.gy', 'gy', number],
  ['motion.gz', 'gz', number],
  ['sysinfo.serial_number', 'serialNumber', text],
  ['sysinfo.firmware_version', 'versionFw', text],
];

function values(p: Payload, a: Attrs): void {
  for (const [key, attr, read] of VALUES) {
    const v = read(p[key]);
    if (v !== undefined) a[attr] = v;
  }
}

function io(p: Payload, a: Attrs): void {
  if (p['io.IGT'] !== undefined) a[Attr.ignition] = Number(p['io.IGT']) > 0;
  for (const [key, v] of Object.entries(p)) {
    const m = /^io\.(AI|DI|DO)(\d{1,2})$/.exec(key);
    if (!m || typeof v !== 'number') continue;
    const n = Number(m[2]);
    if (m[1] === 'AI') a[indexed.adc(n)] = v;
    else a[m[1] === 'DI' ? indexed.in(n) : indexed.out(n)] = v > 0;
  }
}

function cell(p: Payload, rec: DeviceRecord): void {
  const operator = text(p['modem1.operator']);
  const lac = parseInt(String(p['modem1.lac'] ?? ''), 16);
  const cid = parseInt(String(p['modem1.cell_id'] ?? ''), 16);
  if (!operator || !/^\d{5,6}$/.test(operator) || !Number.isFinite(lac) || !Number.isFinite(cid)) return;
  const rssi = number(p['modem1.rssi']) ?? number(p['modem1.rsrp']);
  rec.cells = [{ mcc: Number(operator.slice(0, 3)), mnc: Number(operator.slice(3)), lac, cid, ...(rssi !== undefined ? { rssi } : {}) }];
}

/** The fix of a `gnss` payload (older firmware: `time`, `lat`, `log`); undefined without a fix. */
function gnss(p: Payload, rec: DeviceRecord): boolean {
  const fix = number(p['gnss.fix']);
  if (fix === undefined) return false;
  rec.attributes.gnssFix = fix; // fix mode: 0 none, higher is better
  const sats = number(p['gnss.num_sv']);
  if (sats !== undefined) rec.satellites = sats;
  if (fix <= 0) return false;
  const older = p.time !== undefined;
  const time = number(older ? p.time : p['gnss.ts']);
  const lat = number(older ? p.lat : p['gnss.latitude']);
  const lng = number(older ? p.log : p['gnss.longitude']);
  if (time === undefined || lat === undefined || lng === undefined || Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('flexapi: bad fix');
  Object.assign(rec, { time: time * 1000, valid: true, lat, lng });
  const altitude = number(p['gnss.altitude']);
  const speed = number(p['gnss.speed']);
  const course = number(p['gnss.heading']);
  const hdop = number(p['gnss.hdop']);
  if (altitude !== undefined) rec.altitude = altitude;
  if (speed !== undefined) rec.speed = knotsToKmh(speed); // the devices report knots, as NMEA does
  if (course !== undefined) rec.course = course;
  if (hdop !== undefined) rec.hdop = hdop;
  return true;
}

/** The time of a payload without a fix: its group's `ts`. */
function stamp(p: Payload): number | undefined {
  for (const key of ['summary.ts', 'io.ts', 'obd.ts', 'modem1.ts', 'motion.ts', 'sysinfo.ts']) {
    const ts = number(p[key]);
    if (ts !== undefined) return ts * 1000;
  }
  return undefined;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1');
  const from = s.indexOf('{');
  const to = s.lastIndexOf('}');
  if (from < 0 || to < from) return {};
  let root: { topic?: unknown; payload?: unknown };
  try {
    root = JSON.parse(s.slice(from, to + 1));
  } catch {
    throw new DecodeError('flexapi: bad JSON');
  }
  const m = typeof root?.topic === 'string' ? /^v1\/([^/]+)\/(.+)$/.exec(root.topic) : null;
  const p = root?.payload;
  if (!m || !p || typeof p !== 'object' || Array.isArray(p)) return {};
  const [, deviceId, topic] = m;
  const payload = p as Payload;
  const rec: DeviceRecord = { attributes: {} };
  const session = ctx.session as { last?: LastFix };
  values(payload, rec.attributes);
  if (topic.startsWith('io/') || topic.startsWith('summary/') || (topic.startsWith('event/notice') && payload.type === 'DI_CHG')) io(payload, rec.attributes);
  if (topic.startsWith('cellular1/') || topic.startsWith('summary/')) cell(payload, rec);
  if (gnss(payload, rec)) rememberFix(session, rec);
  else {
    rec.time = stamp(payload) ?? ctx.now;
    withLastFix(rec, session);
  }
  return { deviceId, records: [rec] };
}

export const protocol: Protocol = {
  name: 'flexapi',
  defaultPort: 5235,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('flexapi', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
