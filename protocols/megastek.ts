/**
 * Megastek (GVT900, MT-90, ...) text protocol, two generations:
 *
 *   new  `[llll]$MGV002,<imei>,<name>,<R|S>,<ddmmyy>,<hhmmss>,<A|V>,<lat>,N,<lon>,E,00,<sats>,00,<hdop>,
 *         <speed>,<course>,<alt>,<odometer km>,<mcc>,<mnc>,<lac hex>,<cid hex>,<gsm>,[<heart rate>,]<in bits>,
 *         <out bits>,<adc1>,<adc2>,<adc3>,<temp1>,<temp2>,<rfid>,<charge><belt>,<battery %>,<alert>[,<wifi>]...;!`
 *        (`S` = stored report; watches put heart rate, steps and sleep times where the inputs are)
 *   old  `STX,<id>,$GPRMC,...*cs,<F|L>,<alert>,imei:<imei>,<sats[/visible]>,<alt>,Battery=<n>%,,<charger>,<mcc>,<mnc>,<lac>,<cid>;cs`
 *        or `STX<id, 16 wide>..$GPRMC,...*cs,<mcc>,<mnc>,<lac>,<cid>,<gsm>,<battery>,<flags>,<in>,[<out>,]<adc1>,[<adc2>,<adc3>,]<alert>;cs`
 * Frames: a 4-digit length prefix (the frame then includes it), else up to CRLF, `!` or LF.
 * The devices expect no answer.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { macColons, nmeaCoordinate, num, utc, wifiAttribute } from './text.ts';
import { DecodeError, FrameError, type AttrValue, type Cell, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 4096;

/** `0137$MGV...` carries its length; other frames end at CRLF, else `!`, else LF. */
function createFramer(): Framer {
  return {
    next(buf) {
      let start = 0;
      while (start < buf.length && (buf[start] === 0x0d || buf[start] === 0x0a)) start++;
      if (buf.length - start < 10) return null;
      if (buf[start] >= 0x30 && buf[start] <= 0x39) {
        const digits = buf.toString('latin1', start, start + 4);
        if (!/^\d{4}$/.test(digits)) throw new FrameError('megastek: bad length prefix');
        const size = 4 + Number(digits);
        return buf.length - start >= size ? { frame: buf.subarray(start, start + size), consumed: start + size } : null;
      }
      for (let i = start; i < buf.length && i - start <= MAX_FRAME; i++) {
        const c = buf[i];
        if (c === 0x0a) return { frame: buf.subarray(start, i > start && buf[i - 1] === 0x0d ? i - 1 : i), consumed: i + 1 };
        if (c === 0x21 /* ! */) {
          // `;!\r\n` keeps its `!`: wait to see whether a line break follows
          if (i + 1 >= buf.length) return null;
          if (buf[i + 1] === 0x0d) continue;
          return { frame: buf.subarray(start, i), consumed: i + 1 };
        }
      }
      if (buf.length - start > MAX_FRAME) throw new FrameError('megastek: no delimiter');
      return null;
    },
  };
}

/** Alert words of both generations. */
function alarmOf(value: string): string | undefined {
  const v = value.toLowerCase();
  if (v.startsWith('geo') && v.endsWith('in')) return Alarm.geofenceEnter;
  if (v.startsWith('geo') && v.endsWith('out')) return Alarm.geofenceExit;
  return ALARMS[v];
}

const ALARMS: Record<string, string> = {
    'pw on': Alarm.powerOn, poweron: Alarm.powerOn, poweroff: Alarm.powerOff, sos: Alarm.sos, help: Alarm.sos,
    'over speed': Alarm.overspeed, overspeed: Alarm.overspeed, 'low battery': Alarm.lowBattery, lowbattery: Alarm.lowBattery,
    'low extern voltage': Alarm.lowPower, 'gps cut': Alarm.gpsAntennaCut, vib: Alarm.vibration, hit: Alarm.vibration,
    'move in': Alarm.geofenceEnter, 'move out': Alarm.geofenceExit, corner: Alarm.hardCornering, fatigue: Alarm.fatigueDriving,
    psd: Alarm.powerCut, psr: Alarm.powerRestored, 'belt on': Alarm.lock, belton: Alarm.lock, 'belt off': Alarm.unlock, beltoff: Alarm.unlock, error: Alarm.fault,
};

function setAlert(a: Record<string, AttrValue>, alert: string): void {
  if (!alert) return;
  a[Attr.event] = alert;
  const alarm = alarmOf(alert);
  if (alarm) a[Attr.alarm] = alarm;
}

const bin = (s: string | undefined) => (s && /^[01]+$/.test(s) ? parseInt(s, 2) : undefined);
const hexCell = (mcc: string, mnc: string, lac: string, cid: string, rssi?: number): Cell | undefined =>
  /^\d+$/.test(mcc) && /^\d+$/.test(mnc) && /^[0-9A-Fa-f]{1,8}$/.test(lac) && /^[0-9A-Fa-f]{1,8}$/.test(cid)
    ? { mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16), ...(rssi !== undefined ? { rssi } : {}) }
    : undefined;

// ------------------------------------------------------------------------------------ new format

function decodeNew(s: string): DecodeResult {
  const f = s.slice(s.indexOf('$MGV')).split(',');
  if (f.length < 24) throw new DecodeError('megastek: short report');
  const imei = f[1];
  if (!/^\d+$/.test(imei)) return {};
  // no coordinates: nothing to place on the map
  if (!/^\d+\.\d+$/.test(f[7]) || !/^\d+\.\d+$/.test(f[9]) || !/^[NS]$/.test(f[8]) || !/^[EW]$/.test(f[10])) return { deviceId: imei };
  const [dd, mo, yy] = [f[4].slice(0, 2), f[4].slice(2, 4), f[4].slice(4, 6)].map(Number);
  const [hh, mi, ss] = [f[5].slice(0, 2), f[5].slice(2, 4), f[5].slice(4, 6)].map(Number);
  if (!/^\d{6}$/.test(f[4]) || !/^\d{6}$/.test(f[5])) throw new DecodeError('megastek: bad date');
  const rec: DeviceRecord = {
    time: utc(yy, mo, dd, hh, mi, ss),
    valid: f[6] === 'A',
    lat: nmeaCoordinate(f[7], f[8]),
    lng: nmeaCoordinate(f[9], f[10]),
    satellites: num(f[12]) ?? 0,
    hdop: num(f[14]) ?? 0,
    speed: knotsToKmh(num(f[15]) ?? 0),
    course: num(f[16]) ?? 0,
    altitude: num(f[17]) ?? 0,
    attributes: {},
  };
  const a = rec.attributes;
  if (f[3] === 'S') a[Attr.archive] = true;
  const odometer = num(f[18]);
  if (odometer !== undefined) a[Attr.odometer] = odometer * 1000;
  const cell = hexCell(f[19], f[20], f[21], f[22], num(f[23]));
  if (cell) rec.cells = [cell];
  // inputs block: [heart rate,] in bits, out bits, adc1..3 (or a watch's five health numbers)
  let i = 24;
  if (/^\d{3}$/.test(f[24] ?? '') && /^[01]{4}$/.test(f[25] ?? '')) a.heartRate = Number(f[i++]);
  if (/^(?:[01]{4})?$/.test(f[i] ?? '') && /^(?:[01]{4})?$/.test(f[i + 1] ?? '')) {
    const [input, output] = [bin(f[i]), bin(f[i + 1])];
    if (input !== undefined) a[Attr.input] = input;
    if (output !== undefined) a[Attr.output] = output;
    for (let k = 0; k < 3; k++) {
      const v = num(f[i + 2 + k]);
      if (v !== undefined) a[indexed.adc(k + 1)] = v;
    }
  } else if (f.slice(i, i + 5).every((v) => /^\d+$/.test(v))) {
    [a.heartRate, a[Attr.steps], a.activityTime, a.lightSleepTime, a.deepSleepTime] = f.slice(i, i + 5).map(Number);
  }
  i += 5;
  for (let k = 1; k <= 2; k++) {
    const t = num(f[i++]);
    if (t !== undefined) a[indexed.temp(k)] = t;
  }
  // then [rfid,] [charge+belt,] battery, alert: the alert is the first field with a letter
  const rest = f.slice(i);
  const k = rest.findIndex((v) => /[A-Za-z]/.test(v));
  if (k < 0) return { deviceId: imei, records: [rec] };
  const rfid = k >= 3 ? rest[k - 3] : k === 2 ? rest[0] : '';
  if (/^\d+$/.test(rfid)) a[Attr.driverUniqueId] = rfid;
  const cb = k >= 3 ? /^([01])(\d)?/.exec(rest[k - 2]) : null;
  if (cb) {
    a[Attr.charge] = cb[1] === '1';
    if (cb[2] !== undefined) a.belt = Number(cb[2]);
  }
  const battery = k >= 1 ? num(rest[k - 1]) : undefined;
  if (battery !== undefined) a[Attr.batteryLevel] = battery;
  setAlert(a, rest[k].replace(/;.*$/, ''));
  i += k + 1;
  const wifi = (f[i] ?? '').replace(/;.*$/, '');
  const points = wifi.split('|').map((p) => /^([0-9a-fA-F]{12}):(-?\d+)$/.exec(p)).filter((m): m is RegExpExecArray => !!m);
  if (points.length) a.wifi = wifiAttribute(points.map((m) => ({ mac: macColons(m[1]), rssi: Number(m[2]) })));
  return { deviceId: imei, records: [rec] };
}

// ------------------------------------------------------------------------------------ old format

const RMC = /^\$GPRMC,(\d\d)(\d\d)(\d\d)\.(\d{3}),([AV]),(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),(\d+\.\d+)?,(\d+\.\d+)?,(\d\d)(\d\d)(\d\d)/;
const SIMPLE = /^[FL],([^,]*),imei:(\d+),(\d+)(?:\/(\d+))?,(\d+\.\d+)?,Battery=(\d+)%,,?(\d)?,(\d+)?,(\d+)?,([0-9A-Fa-f]{4}),([0-9A-Fa-f]{4});/;
const ALTERNATIVE = /^(\d+),(\d+),([0-9A-Fa-f]{4}),([0-9A-Fa-f]{4}),(\d+),(\d+),(\d+),(\d+),(?:(\d+),)?(\d\.?\d*),(?:(\d\.\d\d),(\d\.\d\d),)?([^;]+);/;

function location(s: string): DeviceRecord | undefined {
  const m = RMC.exec(s);
  if (!m) return undefined;
  return {
    time: utc(Number(m[14]), Number(m[13]), Number(m[12]), Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])),
    valid: m[5] === 'A',
    lat: nmeaCoordinate(m[6], m[7]),
    lng: nmeaCoordinate(m[8], m[9]),
    speed: knotsToKmh(num(m[10]) ?? 0),
    course: num(m[11]) ?? 0,
    attributes: {},
  };
}

function decodeOld(s: string): DecodeResult {
  const simple = s[3] === ',' || s[6] === ',';
  let id: string;
  let loc: string;
  let status: string;
  const star = (from: number) => {
    const at = s.indexOf('*', from);
    return at < 0 ? s.length : Math.min(s.length, at + 3);
  };
  if (simple) {
    const begin = s.indexOf(',') + 1;
    const end = s.indexOf(',', begin);
    if (end < 0) throw new DecodeError('megastek: no id');
    id = s.slice(begin, end);
    const locEnd = star(end + 1);
    loc = s.slice(end + 1, locEnd);
    status = s.slice(Math.min(locEnd + 1, s.length));
  } else {
    id = s.slice(3, 19).trim();
    const locEnd = star(21);
    loc = s.slice(21, locEnd);
    status = s.slice(locEnd + 1);
  }
  const rec = location(loc);
  if (!rec) return {};
  const a = rec.attributes;
  let deviceId = id || undefined;
  if (simple) {
    const m = SIMPLE.exec(status);
    if (m) {
      setAlert(a, m[1]);
      deviceId = m[2];
      rec.satellites = Number(m[3]);
      if (m[4] !== undefined) a.satVisible = Number(m[4]);
      rec.altitude = num(m[5]) ?? 0;
      a[Attr.batteryLevel] = Number(m[6]);
      if (m[7] !== undefined) a[Attr.charge] = m[7] === '1';
      const cell = m[8] && m[9] ? hexCell(m[8], m[9], m[10], m[11]) : undefined;
      if (cell) rec.cells = [cell];
    }
  } else {
    const m = ALTERNATIVE.exec(status);
    if (m) {
      const cell = hexCell(m[1], m[2], m[3], m[4], Number(m[5]));
      if (cell) rec.cells = [cell];
      a[Attr.batteryLevel] = Number(m[6]);
      a.flags = m[7];
      a[Attr.input] = parseInt(m[8], 2) || 0;
      if (m[9] !== undefined) a[Attr.output] = parseInt(m[9], 2) || 0;
      a[indexed.adc(1)] = Number(m[10]);
      if (m[11] !== undefined) a[indexed.adc(2)] = Number(m[11]);
      if (m[12] !== undefined) a[indexed.adc(3)] = Number(m[12]);
      setAlert(a, m[13]);
    }
  }
  return deviceId ? { deviceId, records: [rec] } : {};
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1');
  if (s.includes('$MG')) return decodeNew(s);
  if (s.length < 22) return {};
  return decodeOld(s);
}

export const protocol: Protocol = {
  name: 'megastek',
  defaultPort: 5024,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};

