/**
 * Xexun TK102/TK103/TK201 and compatible text protocol: a GPRMC sentence with the IMEI appended.
 *
 *   basic  `G[PN]RMC,<hhmmss.sss>,<A|V>,<ddmm.mmmm>,N,<dddmm.mmmm>,E,<knots>,<course>,<ddmmyy>,...*<cs>,<F|L>,[<message>,] imei:<imei>,`
 *   full   `<yymmddhhmmss local>,<phone>,` + basic + `<satellites>,<altitude>,<F|L>:<battery>V[/ADC1=<v>V/ADC2=<v>V],
 *          <charging 0|1>,<length>,<crc>,<mcc>,<mnc>,<lac hex>,<cid hex>[,<odometer>km]`
 * `F`/`L` after the checksum is the GPS signal (full/low); the message is an alarm or event text
 * (`help me!`, `low battery`, `move!`, `speed!`, `ACC On`, ...). Devices expect no answer.
 * By default the framer cuts the basic part out of each report (from `GPRMC` to `imei:<digits>,`);
 * with `extended: true` in the configuration it passes whole lines, keeping the full fields.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { knotsToKmh, nmeaDegrees } from './binary.ts';
import { FrameError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;

function basicFramer(): Framer {
  return {
    next(buffer) {
      const a = buffer.indexOf('GPRMC');
      const b = buffer.indexOf('GNRMC');
      const start = a < 0 ? b : b < 0 ? a : Math.min(a, b);
      if (start < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('xexun: no GPRMC');
        return null;
      }
      const imei = buffer.indexOf('imei:', start);
      if (imei < 0) {
        if (buffer.length - start > MAX_FRAME) throw new FrameError('xexun: no imei');
        return null;
      }
      let end = imei + 5;
      while (end < buffer.length && buffer[end] >= 0x30 && buffer[end] <= 0x39) end++;
      if (end >= buffer.length) return null;
      if (buffer[end] !== 0x2c) throw new FrameError('xexun: imei not followed by a comma');
      return { frame: buffer.subarray(start, end + 1), consumed: end + 1 };
    },
  };
}

function lineFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && (buffer[start] === 0x0a || buffer[start] === 0x0d)) start++;
      for (let i = start; i < buffer.length; i++) {
        if (buffer[i] === 0x0a || buffer[i] === 0x0d) return { frame: buffer.subarray(start, i), consumed: i + 1 };
        if (i - start > MAX_FRAME) throw new FrameError('xexun: line too long');
      }
      if (buffer.length - start > MAX_FRAME) throw new FrameError('xexun: line too long');
      return null;
    },
  };
}

const createFramer = (config: Record<string, unknown> = {}) => (config.extended === true ? lineFramer() : basicFramer());

/** Event texts: alarms and ignition changes (matched case-insensitively, start of the text). */
const MESSAGES: Array<[RegExp, Record<string, AttrValue>]> = [
  [/^help me/, { [Attr.alarm]: Alarm.sos }],
  [/^low batt/, { [Attr.alarm]: Alarm.lowBattery }],
  [/^move/, { [Attr.alarm]: Alarm.movement }],
  [/^speed/, { [Attr.alarm]: Alarm.overspeed }],
  [/^stockade/, { [Attr.alarm]: Alarm.geofence }],
  [/^ac alarm/, { [Attr.alarm]: Alarm.powerCut }],
  [/^door/, { [Attr.alarm]: Alarm.door }],
  [/^sensor/, { [Attr.alarm]: Alarm.vibration }],
  [/^acc ?(on|start)/, { [Attr.ignition]: true }],
  [/^acc ?(off|stop)/, { [Attr.ignition]: false }],
];

const RMC =
  /G[PN]RMC,(\d\d)?(\d\d)?(\d\d)?(?:\.\d+)?,([AV]),(\d*\.\d+),([NS]),(\d*\.\d+),([EW])?,(\d*\.?\d*),(\d*\.?\d*),(\d\d)?(\d\d)?(\d\d)?,[^*]*\*[0-9A-Fa-f]{2}\s*,([FL])?,(?:([^,]*),)?\s*imei:(\d+),/;
const FULL_TAIL = /^(\d+),(-?\d+\.?\d*)?,([FL]):(\d+\.?\d*)V(?:\/ADC1=(\d+\.?\d*)V\/ADC2=(\d+\.?\d*)V)?,([01]),\d*,\d*,(\d+),(\d+),([0-9A-Fa-f]+),([0-9A-Fa-f]+)(?:,(\d+\.?\d*)km)?/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1');
  const m = RMC.exec(s);
  if (!m) return {};
  const [, hh, mi, ss, validity, lat, ns, lng, ew, speed, course, dd, mo, yy, signal, message, imei] = m;
  const a: Record<string, AttrValue> = {};
  if (signal) a.gpsSignal = signal;
  const text = message?.trim();
  if (text) {
    a[Attr.event] = text;
    for (const [re, attrs] of MESSAGES) if (re.test(text.toLowerCase())) Object.assign(a, attrs);
  }
  const record: DeviceRecord = { attributes: a };
  const la = nmeaDegrees(Number(lat));
  const lo = nmeaDegrees(Number(lng));
  if (hh !== undefined && mi !== undefined && ss !== undefined && dd !== undefined && la <= 90 && lo <= 180) {
    Object.assign(record, {
      time: Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss)),
      valid: validity === 'A',
      lat: ns === 'S' ? -la : la,
      lng: ew === 'W' ? -lo : lo,
      speed: knotsToKmh(Number(speed) || 0),
    });
    const c = Number(course);
    if (course && c <= 360) record.course = c;
  }
  const tail = FULL_TAIL.exec(s.slice(m.index + m[0].length).trimStart());
  if (tail) {
    const [, sats, altitude, level, battery, adc1, adc2, charge, mcc, mnc, lac, cid, odometer] = tail;
    record.satellites = Number(sats);
    if (altitude !== undefined && record.lat !== undefined) record.altitude = Number(altitude);
    a[Attr.battery] = Number(battery);
    a.batteryFull = level === 'F';
    if (adc1 !== undefined) Object.assign(a, { [indexed.adc(1)]: Number(adc1), [indexed.adc(2)]: Number(adc2) });
    a[Attr.charge] = charge === '1';
    const cell = { mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16) };
    if (cell.mcc && cell.cid && lac.length <= 8 && cid.length <= 8) record.cells = [cell];
    if (odometer !== undefined) a[Attr.odometer] = Number(odometer) * 1000;
  }
  return { deviceId: imei, records: [record] };
}

export const protocol: Protocol = {
  name: 'xexun',
  defaultPort: 5006,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  carriesText: false,
};
