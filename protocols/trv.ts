/**
 * TRV / IW text protocol of kids' and elderly watches and small trackers (`IW` or `TRV` prefix,
 * then a command such as `AP01`, frames end with `#`).
 *
 *   `AP00<imei>[,...]`  login                   -> `IWBP00,<yyyyMMddHHmmss>,0#` (IW) / `TRVBP00#`
 *   `AP01`, `AP10` (alarm), `YP03`, `YP14`      fix: `<yymmdd><A|V><ddmm.mmmm><N|S><dddmm.mmmm><E|W><km/h ddd.d>
 *                                               <hhmmss><course 6><gsm 3><sats 3><battery 3><acc 1><armed 2><mode 2>[...],
 *                                               <mcc>,<mnc>,<lac>,<cid>[,<alarm>][,...<name>|<mac>|<rssi>&...]`
 *   `AP02`  cells and Wi-Fi, `AP03` steps, `AP49` heart rate, `APHT`/`APHP` blood pressure and more,
 *   `AP50` body temperature, `CP01` status.
 * Every message is answered with its header, the letter after `A`/`C`/`Y` moved on by one
 * (`IWAP01...` -> `IWBP01#`), except the kinds that are themselves answers to the server.
 */
import { Alarm, Attr } from './attributes.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { delimitedFramer, latin1, nmeaCoordinate, utc, wifiAttribute } from './text.ts';
import { type AttrValue, type Cell, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 2048;
/** Kinds the device sends in answer to the server: no reply. */
const NO_REPLY = new Set(['AP12', 'AP14', 'AP33', 'AP34', 'AP40', 'AP76', 'AP77', 'AP84', 'AP85', 'AP86', 'AP87']);

interface Session {
  last?: LastFix;
}

const FIX =
  /^[A-Z]{2,3}[A-Z]P\d\d(\d\d)(\d\d)(\d\d)([AV])(\d{4}\.\d+)([NS])(\d{5}\.\d+)([EW])(\d{3}\.\d)(\d\d)(\d\d)(\d\d)([\d.]{6})(\d{3})(\d{3})(\d{3})(\d)(\d\d)(\d\d)(?:\d{3,5})?,(\d+),(\d+),(\d+),(\d+)(?:,(\d\d))?(?:,([^|]+\|[0-9A-Fa-f]{2}(?:-[0-9A-Fa-f]{2}){5}\|-?\d+.*))?/;
const CP01 = /^[A-Z]{2,3}CP01,(\d{3})(\d{3})(\d{3})(\d)(\d\d)(\d\d)(?:(\d{3})\d\d{3}\d\d{4}(\d)(\d)(\d))?/;
const AP02 = /^[A-Z]{2,3}AP02,[^,]+,[01],\d+,(\d+),(\d+),((?:\d+\|\d+\|\d+,)+)\d+,(.*)$/;
const AP03 = /^[A-Z]{2,3}AP03,(\d{3})(\d{3})(\d{3})\d[0-9A-Fa-f]{2}\d\d,(\d+),\d+/;

/** 0 = not reported; `active` = true; anything else false. */
const optional = (v: string, active: number): boolean | undefined => (Number(v) === 0 ? undefined : Number(v) === active);

function common(a: Record<string, AttrValue>, rssi: string, sats: string, battery: string, acc: string, armed: string, mode: string, rec: DeviceRecord): void {
  a[Attr.rssi] = Number(rssi);
  rec.satellites = Number(sats);
  a[Attr.batteryLevel] = Number(battery);
  const ign = optional(acc, 1);
  if (ign !== undefined) a[Attr.ignition] = ign;
  const arm = optional(armed, 1);
  if (arm !== undefined) a[Attr.armed] = arm;
  if (Number(mode) !== 0) a.mode = Number(mode);
}

/** `name|aa-bb-..|rssi&...` -> the `wifi` attribute. */
function wifi(data: string): string | undefined {
  const points = data
    .split('&')
    .map((w) => w.split('|'))
    .filter((v) => v.length >= 3 && /^[0-9A-Fa-f]{2}(?:[-:][0-9A-Fa-f]{2}){5}$/.test(v[1]) && /^-?\d+$/.test(v[2]))
    .map((v) => ({ mac: v[1].replace(/-/g, ':'), rssi: Number(v[2]) }));
  return points.length ? wifiAttribute(points) : undefined;
}

function decodeFix(s: string): DeviceRecord | undefined {
  const m = FIX.exec(s);
  if (!m) return undefined;
  const [, yy, mo, dd, valid, lat, ns, lng, ew, speed, hh, mi, ss, course, rssi, sats, battery, acc, armed, mode, mcc, mnc, lac, cid, alarm, wifis] = m;
  const rec: DeviceRecord = {
    time: utc(Number(yy), Number(mo), Number(dd), Number(hh), Number(mi), Number(ss)),
    valid: valid === 'A',
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew),
    speed: Number(speed),
    course: Number(course) || 0,
    attributes: {},
  };
  common(rec.attributes, rssi, sats, battery, acc, armed, mode, rec);
  rec.cells = [{ mcc: Number(mcc), mnc: Number(mnc), lac: Number(lac), cid: Number(cid) }];
  if (alarm === '01') rec.attributes[Attr.alarm] = Alarm.sos;
  else if (alarm === '05' || alarm === '06') rec.attributes[Attr.alarm] = Alarm.fallDown;
  const w = wifis ? wifi(wifis) : undefined;
  if (w) rec.attributes.wifi = w;
  return rec;
}

function decodeCp01(s: string, session: Session): DeviceRecord | undefined {
  const m = CP01.exec(s);
  if (!m) return undefined;
  const rec = withLastFix({ attributes: {} }, session);
  common(rec.attributes, m[1], m[2], m[3], m[4], m[5], m[6], rec);
  if (m[7] !== undefined) {
    const a = rec.attributes;
    for (const [key, v, active] of [[Attr.blocked, m[8], 2], [Attr.charge, m[9], 1], [Attr.motion, m[10], 1]] as const) {
      const b = optional(v, active);
      if (b !== undefined) a[key] = b;
    }
  }
  return rec;
}

function decodeAp02(s: string, session: Session): DeviceRecord | undefined {
  const m = AP02.exec(s);
  if (!m) return undefined;
  const [mcc, mnc] = [Number(m[1]), Number(m[2])];
  const cells: Cell[] = m[3]
    .split(',')
    .filter(Boolean)
    .slice(0, 16)
    .map((c) => c.split('|').map(Number))
    .map(([lac, cid, rssi]) => ({ mcc, mnc, lac, cid, rssi }));
  const rec = withLastFix({ cells, attributes: {} }, session);
  const w = wifi(m[4]);
  if (w) rec.attributes.wifi = w;
  return rec;
}

/** Health and step reports: comma-separated values after the kind. */
function decodeHealth(type: string, s: string, session: Session): DeviceRecord | undefined {
  const v = s.split(',');
  const n = (i: number) => (v[i] !== undefined && v[i] !== '' && Number.isFinite(Number(v[i])) ? Number(v[i]) : undefined);
  const a: Record<string, AttrValue> = {};
  const put = (key: string, i: number) => {
    const x = n(i);
    if (x !== undefined) a[key] = x;
  };
  if (type === 'AP03') {
    const m = AP03.exec(s);
    if (!m) return undefined;
    const rec = withLastFix({ satellites: Number(m[2]), attributes: { [Attr.rssi]: Number(m[1]), [Attr.batteryLevel]: Number(m[3]), [Attr.steps]: Number(m[4]) } }, session);
    return rec;
  }
  if (type === 'AP49') put('heartRate', 1);
  else if (type === 'APHT' || type === 'APHP') {
    put('heartRate', 1);
    put('pressureSystolic', 2);
    put('pressureDiastolic', 3);
    if (type === 'APHP') {
      put('spo2', 4);
      put('bloodSugar', 5);
      put('temperature', 6);
    }
  } else if (type === 'AP50') {
    put('temperature', 1);
    put(Attr.batteryLevel, 2);
  }
  return Object.keys(a).length ? withLastFix({ attributes: a }, session) : undefined;
}

function replyFor(id: string, type: string, s: string, now: number): Buffer | undefined {
  const header = id + String.fromCharCode(type.charCodeAt(0) + 1) + type.slice(1);
  if (type === 'AP00' && id === 'IW') {
    const t = new Date(now).toISOString().replace(/[-:T]/g, '').slice(0, 14);
    return latin1(`${header},${t},0#`);
  }
  if (type === 'AP14' && id !== 'IW') return latin1(`${header},0.000,0.000#`);
  if (NO_REPLY.has(type) || /^\d{6}$/.test(s.slice(header.length + 1))) return undefined;
  return latin1(`${header}#`);
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const session = ctx.session as Session;
  const s = frame.toString('latin1').replace(/#$/, '').trim();
  const id = s.startsWith('TRV') ? 'TRV' : s.slice(0, 2);
  const type = s.slice(id.length, id.length + 4);
  if (!/^[A-Z]{2}$|^TRV$/.test(id) || !/^[A-Z][A-Z][A-Z0-9]{2}$/.test(type)) return {};
  const reply = replyFor(id, type, s, ctx.now);
  if (type === 'AP00') {
    const imei = s.split(',')[0].slice(id.length + 4);
    return { deviceId: imei || undefined, reply };
  }
  let rec: DeviceRecord | undefined;
  if (type === 'CP01') rec = decodeCp01(s, session);
  else if (type === 'AP01' || type === 'AP10' || type === 'YP03' || type === 'YP14') {
    rec = decodeFix(s);
    if (rec) rememberFix(session, rec);
  } else if (type === 'AP02') rec = decodeAp02(s, session);
  else rec = decodeHealth(type, s, session);
  return { records: rec ? [rec] : undefined, reply };
}

export const protocol: Protocol = {
  name: 'trv',
  defaultPort: 5010,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('trv', [0x23], MAX_FRAME),
  decode,
  commands: [],
};

