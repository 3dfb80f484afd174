/**
 * L100 / ATL (Atlanta Systems) text protocol.
 *
 *   normal    `ATL[,<x>,]<imei>,$GPRMC,<hhmmss>,A,<ddmm.mmmm>,N,<dddmm.mmmm>,E,<knots>,<course>,<ddmmyy>,...,#<io bits>,
 *             <adc|N.C>,<r>,<r>,<odometer km>,<temperature>,<battery V>,<rssi>,<mcc>,<mnc>,<lac hex>,<cid hex>...ATL`,
 *             answered with the byte 0x01
 *   OBD fix   `L|H,ATL,<imei>,<type>,<index>,<hhmmss>,<ddmmyy>,A,<lat>;N,<lon>;E,<km/h>,<course>,<odometer km>,<battery V>,
 *             <rssi>,<mcc>,<mnc>,<lac>,<cid hex>,#<ignition><r><harsh><charge>,<overspeed>,ATL,` — type 01 is the login,
 *             answered `@<imei>,00,<index>,*<xor of the answer so far>`
 *   OBD data  `L|H,ATLOBD,<imei>,<type>,<index>,<hhmmss>,<ddmmyy>,<protocol>,<pid>:<hex value>,...`
 *   short     `[ATL,L|H,<imei>,]N|P|T,<ddmmyy>,<hhmmss>,A,<lat>,N,<lon>,E,<speed>,GPS|GSM|INV,<battery mV>,<mcc>,<mnc>,<lac>,<cid hex>`
 * On the wire, reports end with `@` or `*<checksum>`, or come wrapped between 0x01/0x03 and 0x02/0x04.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { knotsToKmh, nmeaDegrees } from './binary.ts';
import { withLastFix, rememberFix, type LastFix } from './last-fix.ts';
import { FrameError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 2048;

/**
 * Wrapped reports run between 0x01/0x03 and 0x02/0x04 (plus one byte after). Plain ones end at `@`, at
 * `*<checksum>` (the NMEA checksum inside a `$GPRMC` report does not count), or with the `ATL` after
 * the `#` status part of a `$GPRMC` report.
 */
function createFramer(): Framer {
  return {
    next(buffer) {
      let nmea = false;
      let status = false;
      for (let i = 0; i < buffer.length; i++) {
        const b = buffer[i];
        if (i > MAX_FRAME) throw new FrameError('l100: frame too long');
        if (b === 0x01 || b === 0x03) {
          const end = buffer.indexOf(b + 1, i + 1);
          if (end < 0) {
            if (buffer.length - i > MAX_FRAME) throw new FrameError('l100: frame too long');
            return null;
          }
          if (end + 1 >= buffer.length) return null;
          return { frame: buffer.subarray(i + 1, end), consumed: end + 2 };
        }
        if (b === 0x24) nmea = true;
        else if (b === 0x23) status = true;
        else if (b === 0x40) return { frame: buffer.subarray(0, i), consumed: i + 1 };
        else if (b === 0x2a && !nmea) return i + 1 < buffer.length ? { frame: buffer.subarray(0, i), consumed: i + 2 } : null;
        else if (status && nmea && b === 0x4c && buffer[i - 1] === 0x54 && buffer[i - 2] === 0x41) {
          let consumed = i + 1;
          while (buffer[consumed] === 0x0d || buffer[consumed] === 0x0a || buffer[consumed] === 0x40) consumed++;
          return { frame: buffer.subarray(0, i + 1), consumed };
        }
      }
      return null;
    },
  };
}

const NORMAL =
  /^ATL(?:,[^,]+,)?(\d{15}),\$GPRMC,(\d\d)(\d\d)(\d\d)(?:\.\d+)?,([AV]),(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),(\d+\.?\d*)?,(\d+\.?\d*)?,(\d\d)(\d\d)(\d\d),.*?#([01]+),(\d+\.?\d*|N\.C),[^,]*,[^,]*,(\d+\.?\d*),(\d+\.?\d*),(\d+\.?\d*),(\d+),(\d+),(\d+),([0-9A-Fa-f]+),([0-9A-Fa-f]+)/;
const OBD_FIX =
  /^[LH],ATL,(\d{15}),(\d+),(\d+),(?:(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),([AV]),(\d+\.\d+);([NS]),(\d+\.\d+);([EW]),(\d+),(\d+),(\d+\.\d+),(\d+\.\d+),(\d+),(\d+),(\d+),(\d+),([0-9A-Fa-f]+),#(\d)(\d)(\d)(\d),(\d),ATL,)?/;
const OBD_DATA = /^[LH],ATLOBD,(\d{15}),\d+,\d+,(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),[^,]+,(.+)$/;
const SHORT =
  /^(?:ATL,[LH],(\d{15}),)?([NPT]),(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),([AV]),(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),(\d+\.?\d*),(?:GPS|GSM|INV),(\d+),(\d+),(\d+),(\d+),([0-9A-Fa-f]+)/;

const utc = (yy: string, mo: string, dd: string, hh: string, mi: string, ss: string) =>
  Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss));
const signed = (v: number, hem: string) => (hem === 'S' || hem === 'W' ? -v : v);
const inRange = (lat: number, lng: number) => Math.abs(lat) <= 90 && Math.abs(lng) <= 180;

interface Session {
  last?: LastFix;
}

function decodeNormal(m: RegExpExecArray, session: Session): DecodeResult {
  const [, imei, hh, mi, ss, validity, lat, ns, lng, ew, speed, course, dd, mo, yy, io, adc, odometer, temp, battery, rssi, mcc, mnc, lac, cid] = m;
  const la = signed(nmeaDegrees(Number(lat)), ns);
  const lo = signed(nmeaDegrees(Number(lng)), ew);
  if (!inRange(la, lo)) return { deviceId: imei };
  const a: Record<string, AttrValue> = {
    [Attr.status]: io,
    [Attr.odometer]: Math.round(Number(odometer) * 1000),
    [indexed.temp(1)]: Number(temp),
    [Attr.battery]: Number(battery),
  };
  if (adc !== 'N.C') a[indexed.adc(1)] = Number(adc);
  const rec: DeviceRecord = {
    time: utc(yy, mo, dd, hh, mi, ss),
    valid: validity === 'A',
    lat: la,
    lng: lo,
    speed: knotsToKmh(Number(speed ?? 0)),
    course: Number(course ?? 0) % 360,
    attributes: a,
  };
  if (Number(rssi) > 0) rec.cells = [{ mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16), rssi: Number(rssi) }];
  rememberFix(session, rec);
  return { deviceId: imei, records: [rec], reply: Buffer.of(0x01) };
}

function decodeObdFix(m: RegExpExecArray, session: Session): DecodeResult {
  const [, imei, type, index, hh, mi, ss, dd, mo, yy, validity, lat, ns, lng, ew, speed, course, odometer, battery, rssi, mcc, mnc, lac, cid, ignition, , harsh, charge, overspeed] = m;
  if (Number(type) === 1) {
    const answer = `@${imei},00,${Number(index)},`;
    let x = 0;
    for (let i = 0; i < answer.length; i++) x ^= answer.charCodeAt(i);
    return { deviceId: imei, reply: Buffer.concat([Buffer.from(`${answer}*`, 'latin1'), Buffer.of(x)]) };
  }
  if (hh === undefined) return { deviceId: imei };
  const la = signed(Number(lat), ns);
  const lo = signed(Number(lng), ew);
  if (!inRange(la, lo)) return { deviceId: imei };
  const a: Record<string, AttrValue> = {
    [Attr.odometer]: Math.round(Number(odometer) * 1000),
    [Attr.battery]: Number(battery),
    [Attr.ignition]: ignition === '1',
    [Attr.charge]: charge === '1',
  };
  const alarm = overspeed === '1' ? Alarm.overspeed : harsh === '0' ? Alarm.hardBraking : harsh === '2' ? Alarm.hardAcceleration : harsh === '1' ? Alarm.general : undefined;
  if (alarm) a[Attr.alarm] = alarm;
  const rec: DeviceRecord = {
    time: utc(yy, mo, dd, hh, mi, ss),
    valid: validity === 'A',
    lat: la,
    lng: lo,
    speed: Number(speed),
    course: Number(course) % 360,
    cells: [{ mcc: Number(mcc), mnc: Number(mnc), lac: Number(lac), cid: parseInt(cid, 16), rssi: Number(rssi) }],
    attributes: a,
  };
  rememberFix(session, rec);
  return { deviceId: imei, records: [rec] };
}

/** OBD mode 01 values (`01<pid>:<hex>`): the common engine values. */
function decodeObdData(m: RegExpExecArray, session: Session): DecodeResult {
  const [, imei, hh, mi, ss, dd, mo, yy, data] = m;
  const a: Record<string, AttrValue> = {};
  for (const entry of data.split(',').slice(0, 64)) {
    const e = /^01([0-9A-Fa-f]{2}):([0-9A-Fa-f]+)$/.exec(entry);
    if (!e) continue;
    const pid = parseInt(e[1], 16);
    const v = parseInt(e[2], 16);
    const [x, y] = [e[2].length >= 2 ? parseInt(e[2].slice(0, 2), 16) : v, e[2].length >= 4 ? parseInt(e[2].slice(2, 4), 16) : 0];
    switch (pid) {
      case 0x04: a[Attr.engineLoad] = (v * 100) / 255; break;
      case 0x05: a[Attr.coolantTemp] = v - 40; break;
      case 0x0c: a[Attr.rpm] = (x * 256 + y) / 4; break;
      case 0x0d: a[Attr.obdSpeed] = v; break;
      case 0x11: a[Attr.throttle] = (v * 100) / 255; break;
      case 0x2f: a[Attr.fuelLevel] = (v * 100) / 255; break;
      default: a[`pid${e[1].toUpperCase()}`] = v;
    }
  }
  const rec = withLastFix({ time: utc(yy, mo, dd, hh, mi, ss), attributes: a }, session);
  return { deviceId: imei, records: [rec] };
}

function decodeShort(m: RegExpExecArray, session: Session): DecodeResult {
  const [, imei, alarm, dd, mo, yy, hh, mi, ss, validity, lat, ns, lng, ew, speed, battery, mcc, mnc, lac, cid] = m;
  const la = signed(Number(lat), ns);
  const lo = signed(Number(lng), ew);
  if (!inRange(la, lo)) return { deviceId: imei };
  const a: Record<string, AttrValue> = { [Attr.battery]: Number(battery) / 1000 };
  if (alarm === 'P') a[Attr.alarm] = Alarm.sos;
  if (alarm === 'T') a[Attr.alarm] = Alarm.tampering;
  const rec: DeviceRecord = {
    time: utc(yy, mo, dd, hh, mi, ss),
    valid: validity === 'A',
    lat: la,
    lng: lo,
    speed: knotsToKmh(Number(speed)),
    cells: [{ mcc: Number(mcc), mnc: Number(mnc), lac: Number(lac), cid: parseInt(cid, 16) }],
    attributes: a,
  };
  rememberFix(session, rec);
  return { deviceId: imei, records: [rec] };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  const session = ctx.session as Session;
  let m: RegExpExecArray | null;
  if ((m = OBD_DATA.exec(s))) return decodeObdData(m, session);
  if (/^[LH],ATL,/.test(s)) return (m = OBD_FIX.exec(s)) ? decodeObdFix(m, session) : {};
  if (s.includes('$GPRMC')) return (m = NORMAL.exec(s)) ? decodeNormal(m, session) : {};
  return (m = SHORT.exec(s)) ? decodeShort(m, session) : {};
}

export const protocol: Protocol = {
  name: 'l100',
  defaultPort: 5112,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  carriesText: false,
};
