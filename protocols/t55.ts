/**
 * T55 and the family of trackers that speak plain NMEA 0183 over a line, plus a few vendor
 * sentences (Maxon, WMCS, CradlePoint, u-blox `$PUBX`, `QZE`).
 *
 *   identity   `$PGID,<id>*cs`, `$DEVID,<id>*cs`, `$PSIWMDID,<id>*cs`, `$IMEI=<id>`, `IMEI <id>`,
 *              `$PCPTI,<id>,...`, `$CONNECT,<imei>,...`, `$GPFID,<id>`, a bare hex id, or the id
 *              glued before a sentence (`<id>$GPRMC`, `<id>,$GPRMC`, `x/<id>/$GPRMC`)
 *   fixes      `$G?RMC` (date, knots; T55 appends `,<sats>,<imei>,<ign>,<fuel>,<battery>,<io...>`),
 *              `$G?GGA` / `$G?GLL` (time of day only), `$GPRMA` (no time), `$TRCCR` (decimal degrees),
 *              `$PUBX,00` (km/h, accuracy), `QZE,<imei>,...`, `$ID,<imei>,...GPSE?,...` (WMCS)
 *   status     `$GPIOP` (inputs, outputs, analog inputs, power, battery), `$GPTXT,NET` (operator)
 * Maxon devices send the fix first and the id after (`$GPFID`): the fix waits for it.
 * The devices expect no answer; `ack: true` in the settings answers each RMC with `OK1`.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { delimitedFramer, hms, latin1, nmeaCoordinate, num, timeOfDay, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;

interface Session {
  last?: LastFix;
  /** A Maxon fix that came before the device named itself. */
  pending?: DeviceRecord;
}

const RMC =
  /^\$G[PLN]RMC,(\d\d)(\d\d)(\d\d)(?:\.\d*)?,([AV]),(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),(\d+\.?\d*)?,(\d+\.?\d*)?,(\d\d)(\d\d)(\d\d),(?:[^*]+\*[^,]+,(\d+),(\d+),([01]),(\d+)(?:,(\d+))?((?:,\d+)+)?)?/;
const GGA = /^\$G[PLN]GGA,(\d\d)(\d\d)(\d\d)(?:\.\d*)?,(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),(\d+),(\d+),(\d+\.?\d*),(-?\d+\.?\d*),/;
const GLL = /^\$G[PLN]GLL,(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),(\d\d)(\d\d)(\d\d)(?:\.\d*)?,([AV]),/;
const RMA = /^\$GPRMA,([AV]),(\d{4}\.\d+),([NS]),(\d{5}\.\d+),([EW]),,,(\d+\.?\d*)?,(\d+\.?\d*)?,/;
const TRCCR = /^\$TRCCR,(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(?:\.\d*)?,([AV]),(-?\d+\.\d+),(-?\d+\.\d+),(\d+\.\d+),(\d+\.\d+),(-?\d+\.\d+),(\d+\.?\d*),/;
const GPIOP = /^\$GPIOP,([01]{8}),([01]{8}),(\d+\.\d+),(\d+\.\d+),(\d+\.\d+),(\d+\.\d+),(\d+\.\d+),(\d+\.\d+)/;
const QZE = /^QZE,(\d{15}),(\d+),(\d\d)(\d\d)(\d{4}),(\d\d)(\d\d)(\d\d),(-?\d+\.\d+),(-?\d+\.\d+),(\d+),(\d+),([AV]),([01])/;
const PUBX =
  /^\$PUBX,(\d+),(\d\d)(\d\d)(\d\d)\.\d+,(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),(-?\d+\.\d+),(..),(\d+\.\d+),\d+\.\d+,(\d+\.\d+),(\d+\.\d+),-?\d+\.\d+,[^,]*,(\d+\.\d+),(\d+\.\d+),\d+\.\d+,(\d+),(\d+),\d+\*[0-9A-Fa-f]{2}/;
const GPTXT = /^\$GPTXT,NET,(\d+),([^,]+),(-\d+),(\d+) (\d+)\*[0-9A-Fa-f]{2}/;
const WMCS =
  /^\$ID,(\d+),()(?:.*?,)?GPSE[XHTD],([AV])(?:,D,(\d\d)(\d\d)(\d\d))?(?:,T,(\d\d)(\d\d)(\d\d))?(?:,S,(\d+):(\d+))?(?:,La,(-?\d+\.\d+),([NS]))?(?:,Lo,(-?\d+\.\d+),([EW]))?(?:,H,(\d+\.\d+))?(?:,V,(\d+\.\d+))?(?:,DD,(\d+))?/;

const coord = (v: string, hem: string) => nmeaCoordinate(v, hem);

function rmc(s: string): { rec: DeviceRecord; imei?: string } | undefined {
  const m = RMC.exec(s);
  if (!m) return undefined;
  const rec: DeviceRecord = {
    time: utc(Number(m[13]), Number(m[12]), Number(m[11]), Number(m[1]), Number(m[2]), Number(m[3])),
    valid: m[4] === 'A',
    lat: coord(m[5], m[6]),
    lng: coord(m[7], m[8]),
    speed: knotsToKmh(num(m[9]) ?? 0),
    course: num(m[10]) ?? 0,
    attributes: {},
  };
  if (m[14] === undefined) return { rec };
  rec.satellites = Number(m[14]);
  const a = rec.attributes;
  a[Attr.ignition] = m[16] === '1';
  a[Attr.fuel] = Number(m[17]);
  if (m[18] !== undefined) a[Attr.battery] = Number(m[18]);
  m[19]?.split(',').slice(1).forEach((v, i) => (a[indexed.io(i + 1)] = Number(v)));
  return { rec, imei: m[15] };
}

function gga(s: string, now: number): DeviceRecord | undefined {
  const m = GGA.exec(s);
  if (!m) return undefined;
  return {
    time: timeOfDay(now, Number(m[1]), Number(m[2]), Number(m[3])),
    lat: coord(m[4], m[5]),
    lng: coord(m[6], m[7]),
    valid: Number(m[8]) > 0,
    satellites: Number(m[9]),
    hdop: Number(m[10]),
    altitude: Number(m[11]),
    attributes: {},
  };
}

function gll(s: string, now: number): DeviceRecord | undefined {
  const m = GLL.exec(s);
  if (!m) return undefined;
  return { lat: coord(m[1], m[2]), lng: coord(m[3], m[4]), time: timeOfDay(now, Number(m[5]), Number(m[6]), Number(m[7])), valid: m[8] === 'A', attributes: {} };
}

function rma(s: string, now: number): DeviceRecord | undefined {
  const m = RMA.exec(s);
  if (!m) return undefined;
  return { time: now, valid: m[1] === 'A', lat: coord(m[2], m[3]), lng: coord(m[4], m[5]), speed: knotsToKmh(num(m[6]) ?? 0), course: num(m[7]) ?? 0, attributes: {} };
}

function trccr(s: string): DeviceRecord | undefined {
  const m = TRCCR.exec(s);
  if (!m) return undefined;
  const [lat, lng] = [Number(m[8]), Number(m[9])];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('t55: coordinates out of range');
  return {
    time: utc(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])),
    valid: m[7] === 'A',
    lat,
    lng,
    speed: knotsToKmh(Number(m[10])),
    course: Number(m[11]),
    altitude: Number(m[12]),
    attributes: { [Attr.battery]: Number(m[13]) },
  };
}

const bits = (s: string) => [...s].reduce((mask, c, i) => (c === '1' ? mask | (1 << i) : mask), 0);

function gpiop(s: string, session: Session): DeviceRecord | undefined {
  const m = GPIOP.exec(s);
  if (!m) return undefined;
  const a: DeviceRecord['attributes'] = { [Attr.input]: bits(m[1]), [Attr.output]: bits(m[2]), [Attr.power]: Number(m[7]), [Attr.battery]: Number(m[8]) };
  for (let i = 0; i < 4; i++) a[indexed.adc(i + 1)] = Number(m[3 + i]);
  return withLastFix({ attributes: a }, session);
}

function qze(m: RegExpExecArray): DeviceRecord {
  const [lat, lng] = [Number(m[9]), Number(m[10])];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('t55: coordinates out of range');
  return {
    time: utc(Number(m[5]), Number(m[4]), Number(m[3]), Number(m[6]), Number(m[7]), Number(m[8])),
    lat,
    lng,
    speed: Number(m[11]),
    course: Number(m[12]),
    valid: m[13] === 'A',
    attributes: { [Attr.event]: Number(m[2]), [Attr.ignition]: m[14] === '1' },
  };
}

function pubx(m: RegExpExecArray, now: number): DeviceRecord {
  return {
    time: timeOfDay(now, Number(m[2]), Number(m[3]), Number(m[4])),
    lat: coord(m[5], m[6]),
    lng: coord(m[7], m[8]),
    altitude: Number(m[9]),
    valid: m[10] !== 'NF',
    precision: Number(m[11]),
    speed: Number(m[12]),
    course: Number(m[13]),
    hdop: Number(m[14]),
    satellites: Number(m[16]),
    attributes: { [Attr.index]: Number(m[1]), vdop: Number(m[15]) },
  };
}

function wmcs(m: RegExpExecArray, s: string, session: Session): DeviceRecord {
  const rec: DeviceRecord = { valid: m[3] === 'A', attributes: {} };
  const a = rec.attributes;
  const alarm = /,ALARM,(0x[0-9a-fA-F]{1,8}),/.exec(s);
  if (alarm) {
    a[Attr.status] = parseInt(alarm[1], 16);
    if (a[Attr.status] !== 0) a[Attr.alarm] = Alarm.general;
  }
  const io = /,IOP,(?:O,(0x[0-9a-fA-F]+),)?(?:I,(0x[0-9a-fA-F]+),)?/.exec(s);
  if (io?.[1]) a[Attr.output] = parseInt(io[1], 16);
  if (io?.[2]) a[Attr.input] = parseInt(io[2], 16);
  if (m[4] !== undefined && m[7] !== undefined) rec.time = utc(Number(m[6]), Number(m[5]), Number(m[4]), Number(m[7]), Number(m[8]), Number(m[9]));
  if (m[10] !== undefined) {
    a.satVisible = Number(m[10]);
    rec.satellites = Number(m[11]);
  }
  if (m[12] !== undefined && m[14] !== undefined) {
    const [lat, lng] = [Number(m[12]), Number(m[14])];
    if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('t55: coordinates out of range');
    rec.lat = m[13] === 'S' ? -lat : lat;
    rec.lng = m[15] === 'W' ? -lng : lng;
  }
  if (m[16] !== undefined) rec.course = Number(m[16]);
  if (m[17] !== undefined) rec.speed = Number(m[17]);
  if (m[18] !== undefined) a[Attr.totalDistance] = Number(m[18]);
  if (rec.lat === undefined) withLastFix(rec, session);
  return rec;
}

/** Splits an id glued before the sentence (`<id>$`, `<id>,$`, `x/<id>/$`). */
function splitId(s: string): { id?: string; sentence: string } {
  const at = s.indexOf('$');
  if (at <= 0) return { sentence: s };
  let id = s.slice(0, at);
  if (id.endsWith(',')) id = id.slice(0, -1);
  else if (id.endsWith('/')) id = id.slice(id.indexOf('/') + 1, -1);
  return { id: id || undefined, sentence: s.slice(at) };
}

/** Sentences that only name the device. */
function identity(s: string): string | undefined {
  const star = s.lastIndexOf('*');
  if (s.startsWith('$PGID,')) return s.slice(6, s.length - 3);
  if (s.startsWith('$DEVID,') && star > 7) return s.slice(7, star);
  if (s.startsWith('$PSIWMDID,') && star > 10) return s.slice(10, star);
  if (s.startsWith('$PCPTI,')) return s.slice(7, s.indexOf(',', 7) > 0 ? s.indexOf(',', 7) : undefined);
  if (s.startsWith('IMEI ')) return s.slice(5);
  if (s.startsWith('$IMEI=')) return s.slice(6);
  if (s.startsWith('$CONNECT,')) return s.slice(9, s.indexOf(',', 9) > 0 ? s.indexOf(',', 9) : undefined);
  if (/^[0-9A-F]+$/.test(s)) return s;
  return undefined;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const session = ctx.session as Session;
  const split = splitId(frame.toString('latin1').trim());
  const s = split.sentence;
  const named = identity(s);
  if (named !== undefined) return named ? { deviceId: named } : {};
  if (s.startsWith('$GPFID,')) {
    const id = s.slice(7);
    const pending = session.pending;
    session.pending = undefined;
    return { deviceId: id || undefined, records: pending ? [pending] : undefined };
  }
  const known = split.id ?? ctx.deviceId;
  const done = (rec: DeviceRecord | undefined, deviceId = split.id, reply?: Buffer): DecodeResult => {
    if (!rec) return { deviceId };
    if (rec.lat !== undefined) rememberFix(session, rec);
    return { deviceId, records: [rec], reply };
  };
  const type = s.slice(3, 6);
  if (type === 'RMC') {
    const r = rmc(s);
    const reply = ctx.config.ack === true && ctx.transport === 'tcp' ? latin1('OK1\r\n') : undefined;
    if (!r) return { deviceId: split.id, reply };
    const deviceId = r.imei ?? split.id;
    if (!deviceId && !known) {
      session.pending = r.rec; // Maxon: the id follows
      return { reply };
    }
    return done(r.rec, deviceId, reply);
  }
  if (s.startsWith('QZE,')) {
    const m = QZE.exec(s);
    return m ? done(qze(m), m[1]) : {};
  }
  if (s.startsWith('$PUBX,')) {
    const m = PUBX.exec(s);
    return m ? done(pubx(m, ctx.now), m[17]) : {};
  }
  if (s.startsWith('$GPTXT,')) {
    const m = GPTXT.exec(s);
    if (!m) return {};
    const rec = withLastFix({ attributes: { [Attr.operator]: m[2], [Attr.rssi]: Number(m[3]), mcc: Number(m[4]), mnc: Number(m[5]) } }, session);
    return { deviceId: m[1], records: [rec] };
  }
  if (s.startsWith('$ID,')) {
    const m = WMCS.exec(s);
    return m ? done(wmcs(m, s, session), m[1]) : {};
  }
  if (s.startsWith('$GPIOP,')) return done(gpiop(s, session));
  if (!known) return {};
  if (type === 'GGA') return done(gga(s, ctx.now));
  if (type === 'GLL') return done(gll(s, ctx.now));
  if (s.startsWith('$GPRMA,')) return done(rma(s, ctx.now));
  if (s.startsWith('$TRCCR,')) return done(trccr(s));
  return { deviceId: split.id };
}

export const protocol: Protocol = {
  name: 't55',
  defaultPort: 5005,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('t55', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
