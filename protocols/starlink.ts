/**
 * StarLink (Star Track) event reports: `$SLU<id>,<type>,<index>,<fields>*<checksum>`.
 *
 * The id is six hex digits or the IMEI; type 06 is the event report. Its fields follow the report
 * template configured on the device, given to the decoder as `format` (tags like `#EDT#,#EID#,...`;
 * the device's default template when absent). Tags:
 *   EDT event time, PDT position time (yymmddhhmmss), EID event id, EDSC event text, LAT/LONG `±ddmm.mmmm`,
 *   SPD knots, SPDK km/h, HEAD course, ALT altitude, ODO km, SATU satellites used, CSS signal, VIN power V,
 *   VBAT battery V, BATC battery %, IGN/IGNL/ENG ignition, IN1..4, OUT1..4/OUTA..D, LAC/CID, CFL fuel level,
 *   TVI device temperature, TVn/THn/TSn/TIn/TDn wireless sensor temperature/humidity/state/id/data (base64 protobuf).
 * Devices expect no answer.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { FrameError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 2048;
const DEFAULT_FORMAT =
  '#EDT#,#EID#,#PDT#,#LAT#,#LONG#,#SPD#,#HEAD#,#ODO#,#IN1#,#IN2#,#IN3#,#IN4#,#OUT1#,#OUT2#,#OUT3#,#OUT4#,#LAC#,#CID#,#VIN#,#VBAT#,#DEST#,#IGN#,#ENG#';

/** Frames run from `$` to `*` and the two checksum digits. */
function createFramer(): Framer {
  return {
    next(buffer) {
      const start = buffer.indexOf(0x24);
      if (start < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('starlink: no frame start');
        return null;
      }
      const star = buffer.indexOf(0x2a, start);
      if (star < 0) {
        if (buffer.length - start > MAX_FRAME) throw new FrameError('starlink: frame too long');
        return null;
      }
      if (buffer.length < star + 3) return null;
      let consumed = star + 3;
      while (buffer[consumed] === 0x0d || buffer[consumed] === 0x0a) consumed++;
      return { frame: buffer.subarray(start, star + 3), consumed };
    },
  };
}

const EVENTS: Record<number, string> = {
  6: Alarm.overspeed,
  7: Alarm.geofenceEnter,
  8: Alarm.geofenceExit,
  9: Alarm.powerCut,
  11: Alarm.lowBattery,
  26: Alarm.tow,
  36: Alarm.sos,
  42: Alarm.jamming,
};

const TIME = /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/;
const NUM = /^-?\d+(?:\.\d+)?$/;

function time(s: string): number | undefined {
  const m = TIME.exec(s);
  if (!m) return undefined;
  const [yy, mo, dd, hh, mi, ss] = m.slice(1).map(Number);
  return Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss);
}

/** `±ddmm.mmmm` / `±dddmm.mmmm`. */
function coordinate(s: string): number | undefined {
  const m = /^([+-])(\d+)(\d\d\.\d+)$/.exec(s);
  if (!m) return undefined;
  const v = Number(m[2]) + Number(m[3]) / 60;
  return m[1] === '-' ? -v : v;
}

/** Wireless sensor data: a protobuf message; fields 1 sensor number, 3 id, 5 humidity ×10, 9 voltage mV. */
function sensorData(b64: string, a: Record<string, AttrValue>): void {
  if (!/^[A-Za-z0-9+/]+=*$/.test(b64) || b64.length > 256) return;
  const b = Buffer.from(b64, 'base64');
  const fields = new Map<number, number | Buffer>();
  for (let i = 0; i < b.length; ) {
    const key = b[i++];
    const [field, wire] = [key >> 3, key & 7];
    if (wire === 0) {
      let v = 0;
      let shift = 0;
      while (i < b.length && shift < 35) {
        const x = b[i++];
        v += (x & 0x7f) * 2 ** shift;
        shift += 7;
        if (!(x & 0x80)) break;
      }
      fields.set(field, v);
    } else if (wire === 2) {
      const n = b[i++] ?? 0;
      fields.set(field, b.subarray(i, i + n));
      i += n;
    } else return;
  }
  const n = fields.get(1);
  if (typeof n !== 'number') return;
  const id = fields.get(3);
  if (Buffer.isBuffer(id)) a[`sensor${n}Id`] = id.toString('hex').toUpperCase();
  const humidity = fields.get(5);
  if (typeof humidity === 'number') a[`sensor${n}Humidity`] = humidity / 10;
  const voltage = fields.get(9);
  if (typeof voltage === 'number') a[`sensor${n}Voltage`] = voltage / 1000;
}

interface Session {
  last?: LastFix;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const m = /^.SLU([0-9A-Fa-f]{6}|\d{15}),(\d+),(\d+),(.+)\*[0-9A-Fa-f]{2}/.exec(frame.toString('latin1'));
  if (!m) return {};
  const [, id, type, index, data] = m;
  if (Number(type) !== 6) return { deviceId: id };
  const tags = String(ctx.config.format ?? DEFAULT_FORMAT).split(',');
  const values = data.split(',');
  const rec: DeviceRecord = { attributes: { [Attr.index]: Number(index) } };
  const a = rec.attributes;
  let eventTime: number | undefined;
  let lac: number | undefined;
  let cid: number | undefined;
  let event = 0;
  for (let i = 0; i < Math.min(values.length, tags.length); i++) {
    const v = values[i];
    if (!v) continue;
    const tag = tags[i].replace(/#/g, '');
    const n = NUM.test(v) ? Number(v) : undefined;
    const sensor = /^T([VHSID])(\d)$/.exec(tag);
    if (sensor) {
      const k = sensor[2];
      if (sensor[1] === 'V' && n !== undefined) a[indexed.temp(Number(k))] = n;
      else if (sensor[1] === 'H' && n !== undefined) a[`humidity${k}`] = n;
      else if (sensor[1] === 'S' && n !== undefined) a[`sensor${k}State`] = n;
      else if (sensor[1] === 'I') a[`sensor${k}Id`] = v;
      else if (sensor[1] === 'D') sensorData(v, a);
      continue;
    }
    switch (tag) {
      case 'EDT': eventTime = time(v); break;
      case 'PDT': rec.time = time(v); break;
      case 'EID':
        if (n === undefined) break;
        event = n;
        a[Attr.event] = n;
        if (EVENTS[n]) a[Attr.alarm] = EVENTS[n];
        if (n === 24 || n === 25) a[Attr.ignition] = n === 24;
        break;
      case 'EDSC': a.reason = v; break;
      case 'LAT': rec.lat = coordinate(v); break;
      case 'LONG': rec.lng = coordinate(v); break;
      case 'SPD': if (n !== undefined) rec.speed = knotsToKmh(n); break;
      case 'SPDK': if (n !== undefined) rec.speed = n; break;
      case 'HEAD': if (n !== undefined) rec.course = n % 360; break;
      case 'ALT':
      case 'ALTD': if (n !== undefined) rec.altitude = n; break;
      case 'ODO':
      case 'ODOD': if (n !== undefined) a[Attr.odometer] = Math.round(n * 1000); break;
      case 'SATU': if (n !== undefined) rec.satellites = n; break;
      case 'CSS': if (n !== undefined) a[Attr.rssi] = n; break;
      case 'VIN': if (n !== undefined) a[Attr.power] = n; break;
      case 'VBAT': if (n !== undefined) a[Attr.battery] = n; break;
      case 'BATC': if (n !== undefined) a[Attr.batteryLevel] = n; break;
      case 'TVI': if (n !== undefined) a[Attr.deviceTemp] = n; break;
      case 'CFL': if (n !== undefined) a[Attr.fuel] = n; break;
      case 'IGN':
      case 'IGNL':
      case 'ENG': if (n !== undefined) a[Attr.ignition] = n > 0; break;
      case 'IARM': if (n !== undefined) a[Attr.armed] = n > 0; break;
      case 'LAC': if (n !== undefined) lac = n; break;
      case 'CID': if (n !== undefined) cid = n; break;
      case 'DEST': a.destination = v; break;
      case 'DAL':
      case 'DID': a[Attr.driverUniqueId] = v; break;
      case 'PDOP': if (n !== undefined) a.pdop = n; break;
      case 'DUR': if (n !== undefined) a.duration = n; break;
      case 'TDUR': if (n !== undefined) a.totalDuration = n; break;
      default: {
        const io = /^(IN|OUT)([1-4A-D])$/.exec(tag);
        if (io && n !== undefined) {
          const k = /\d/.test(io[2]) ? Number(io[2]) : io[2].charCodeAt(0) - 64;
          a[io[1] === 'IN' ? indexed.in(k) : indexed.out(k)] = n > 0;
        }
      }
    }
  }
  // event 20: an RFID card, the last non-zero field of the report
  if (event === 20) {
    const card = /^0+$/.test(values[values.length - 1]) ? values[values.length - 2] : values[values.length - 1];
    if (card) a[Attr.driverUniqueId] = card;
  }
  if (lac !== undefined && cid !== undefined) rec.cells = [{ mcc: Number(ctx.config.mcc ?? 0), mnc: Number(ctx.config.mnc ?? 0), lac, cid }];
  const session = ctx.session as Session;
  if (rec.time === undefined || rec.lat === undefined || rec.lng === undefined || Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) {
    delete rec.lat;
    delete rec.lng;
    rec.time = eventTime;
    withLastFix(rec, session);
  } else {
    rec.valid = true;
    rememberFix(session, rec);
  }
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'starlink',
  defaultPort: 5136,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  carriesText: false,
};
