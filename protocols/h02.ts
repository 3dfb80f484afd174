/**
 * H02 protocol: text frames `*HQ,<id>,<type>,...#` and binary frames starting with `$`.
 *
 *   V1 (and V2, V6, V8, V19, VI1...)  `*HQ,<id>,V1,<hhmmss>,<A|V>,<ddmm.mmmm>,N,<dddmm.mmmm>,E,<knots>,<course>,<ddmmyy>,<status hex>[,...]#`
 *   V4   a command reply: `*HQ,<id>,V4,<reply...>,<hhmmss>,<A|V>,...` (same fix layout)
 *   NBR  cell towers, LINK link status, V3 cells + battery, VP1 fix or cells, HTBT heartbeat, SMS text
 *   binary `$` + 5-byte BCD id (8 bytes in the 42-byte variant) + BCD time, date, coordinates, speed,
 *          course and a 32-bit status; 32 bytes, or 45 with extra data after the status.
 * Status bits are active-low: alarms when a bit is cleared.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader, knotsToKmh } from './binary.ts';
import {
  DecodeError,
  FrameError,
  type AttrValue,
  type Cell,
  type Command,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type EncodeContext,
  type Framer,
  type Protocol,
} from './types.ts';

const MAX_FRAME = 2048;
const STAR = 0x2a;
const DOLLAR = 0x24;
const X = 0x58;
const HASH = 0x23;
const SHORT = 32;
const LONG = 45;
const isMarker = (b: number | undefined) => b === STAR || b === DOLLAR || b === X;

/**
 * Text frames run to `#`. Binary frames carry no length: they are 32 bytes or, on some devices,
 * 45. While the connection's length is unknown, a `$` frame is 32 bytes when exactly 32 are
 * buffered or the byte after them starts a frame; otherwise it is 45, and 45 is kept for the rest
 * of the connection (`messageLength` in the config fixes it from the start).
 */
function createFramer(config: Record<string, unknown> = {}): Framer {
  let binaryLength = Number(config.messageLength) || 0;
  const binary = (buffer: Buffer, start: number) => {
    const avail = buffer.length - start;
    let length = binaryLength;
    if (!length) {
      if (avail < SHORT) return null;
      if (avail === SHORT || isMarker(buffer[start + SHORT])) length = SHORT;
      else length = binaryLength = LONG;
    }
    if (avail < length) return null;
    return { frame: buffer.subarray(start, start + length), consumed: start + length };
  };
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && !isMarker(buffer[start])) start++;
      if (start >= buffer.length) {
        if (buffer.length > MAX_FRAME) throw new FrameError('h02: no frame start');
        return null;
      }
      if (buffer[start] === X) return buffer.length - start >= SHORT ? { frame: buffer.subarray(start, start + SHORT), consumed: start + SHORT } : null;
      if (buffer[start] === DOLLAR) return binary(buffer, start);
      const end = buffer.indexOf(HASH, start);
      if (end < 0) {
        if (buffer.length - start > MAX_FRAME) throw new FrameError('h02: text frame too long');
        return null;
      }
      let consumed = end + 1;
      while (buffer[consumed] === 0x0d || buffer[consumed] === 0x0a) consumed++;
      return { frame: buffer.subarray(start, end + 1), consumed };
    },
  };
}

// ---- shared values ----------------------------------------------------------------------------

/** Active-low status word: the first cleared alarm bit wins; bit 10 is ignition. */
function statusAttributes(status: number): Record<string, AttrValue> {
  const set = (n: number) => Math.floor(status / 2 ** n) % 2 === 1;
  const a: Record<string, AttrValue> = { [Attr.ignition]: set(10), [Attr.status]: status };
  const alarm = !set(0) ? Alarm.vibration : !set(1) || !set(18) ? Alarm.sos : !set(2) ? Alarm.overspeed : !set(19) ? Alarm.powerCut : undefined;
  if (alarm) a[Attr.alarm] = alarm;
  return a;
}

/** Battery byte: 1..6 are levels, 7..100 percent, 0xF1..0xF6 levels 1..6 too. */
function batteryLevel(v: number): number | undefined {
  if (v === 0) return undefined;
  if (v <= 3) return (v - 1) * 10;
  if (v <= 6) return (v - 1) * 20;
  if (v <= 100) return v;
  if (v >= 0xf1 && v <= 0xf6) return v - 0xf0;
  return undefined;
}

const utc = (y: string, mo: string, d: string, h = '0', mi = '0', s = '0') =>
  Date.UTC(2000 + Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
const compact = (date: Date) => date.toISOString().replace(/[-:T]/g, '').slice(0, 14); // yyyyMMddHHmmss
const hms = (now: number) => compact(new Date(now)).slice(8);
const text = (s: string) => Buffer.from(s, 'latin1');

/** Cell from a lac/cid pair when mcc/mnc come from the server configuration. */
const configuredCell = (ctx: DecodeContext, lac: number, cid: number): Cell => ({
  mcc: Number(ctx.config.mcc ?? 0),
  mnc: Number(ctx.config.mnc ?? 0),
  lac,
  cid,
});

// ---- binary -----------------------------------------------------------------------------------

/** BCD digits read nibble by nibble; a nibble above 9 means a corrupt frame. */
class Nibbles {
  private half = false;
  constructor(private r: Reader) {}
  digit(): number {
    const b = this.r.peekU8();
    const d = this.half ? b & 0x0f : b >> 4;
    if (this.half) this.r.skip(1);
    this.half = !this.half;
    return d;
  }
  bcd(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const d = this.digit();
      if (d > 9) throw new DecodeError('h02: bad BCD digit');
      v = v * 10 + d;
    }
    return v;
  }
}

function decodeBinary(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 1);
  // The 42-byte variant carries the full IMEI in 8 bytes instead of a 10-digit id in 5.
  const id = frame.length === 42 ? r.hex(8).slice(0, 15) : r.hex(5);
  const n = new Nibbles(r);
  const [hh, mi, ss, dd, mo, yy] = [n.bcd(2), n.bcd(2), n.bcd(2), n.bcd(2), n.bcd(2), n.bcd(2)];
  let lat = n.bcd(2) + n.bcd(6) / 10000 / 60;
  const battery = r.u8();
  let lng = n.bcd(3) + n.bcd(6) / 10000 / 60;
  const flags = n.digit();
  if (!(flags & 0x04)) lat = -lat;
  if (!(flags & 0x08)) lng = -lng;
  const speed = n.bcd(3);
  const course = n.digit() * 100 + n.bcd(2);
  const record: DeviceRecord = {
    time: Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss),
    valid: (flags & 0x02) !== 0,
    lat,
    lng,
    speed: knotsToKmh(speed),
    course,
    attributes: statusAttributes(r.u32()),
  };
  const level = batteryLevel(battery);
  if (level !== undefined) record.attributes[Attr.batteryLevel] = level;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('h02: coordinates out of range');
  const reply = ctx.config.ack === true ? text(`*HQ,${id},R12,${hms(ctx.now)}#`) : undefined;
  return { deviceId: id, records: [record], reply };
}

// ---- text: position reports -------------------------------------------------------------------

/** Coordinates come as `ddmm.mmmm`, `-dd-mm.mmmm` or `ddmmmmmm` (minutes without the point). */
const COORD = (hem: string) => `(?:-(\\d+)-(\\d+\\.\\d+)|(\\d*)(\\d\\d\\.\\d+)|(\\d+)(\\d\\d)(\\d{4})),([${hem}]),`;
const POSITION = new RegExp(
  '^\\*..,(\\d+)?,(?:V4,(.*),|(V[^,]*),)' + // id, command reply or type
    '(?:(\\d\\d)(\\d\\d)(\\d\\d))?,' + // time
    '(?:([ABV])?|(\\d+)),' + // validity or coding scheme
    COORD('NS') +
    COORD('EW') +
    ' *(\\d+\\.?\\d*),(\\d+\\.?\\d*)?,(?:\\d+,)?' + // speed (knots), course, battery
    '(?:(\\d\\d)(\\d\\d)(\\d\\d))?' + // date ddmmyy
    '(?:,,[^,]*,[^,]*)?' + // V19: empty field, phone or IP, ICCID
    '(?:,([0-9A-Fa-f]{8})(?:,(\\d+),(-?\\d+),(\\d+\\.\\d+),(-?\\d+),([0-9A-Fa-f]+),([0-9A-Fa-f]+)|,(.*))?)?#',
);

function coordinate(g: string[], hemisphere: string): number {
  const [d1, m1, d2, m2, d3, m3, f3] = g;
  const v = d1 !== undefined ? Number(d1) + Number(m1) / 60 : d2 !== undefined ? Number(d2 || 0) + Number(m2) / 60 : Number(d3) + Number(`${m3}.${f3}`) / 60;
  return hemisphere === 'S' || hemisphere === 'W' ? -v : v;
}

function decodePosition(s: string, ctx: DecodeContext): DecodeResult {
  const m = POSITION.exec(s);
  if (!m) return {};
  const g = m.slice(1);
  const [id, result, type, hh, mi, ss, validity, coding] = g;
  const lat = coordinate(g.slice(8, 15), g[15]);
  const lng = coordinate(g.slice(16, 23), g[23]);
  const [speed, course, dd, mo, yy, status, odometer, temp, fuel, altitude, lac, cid, data] = g.slice(24);
  const record: DeviceRecord = {
    time: dd !== undefined ? utc(yy, mo, dd, hh, mi, ss) : ctx.now,
    valid: coding !== undefined || validity === 'A',
    lat,
    lng,
    speed: knotsToKmh(Number(speed)),
    course: Number(course ?? 0),
    attributes: status ? statusAttributes(parseInt(status, 16)) : {},
  };
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('h02: coordinates out of range');
  const a = record.attributes;
  if (result !== undefined) a[Attr.result] = result;
  if (odometer !== undefined) {
    Object.assign(a, { [Attr.odometer]: Number(odometer), [indexed.temp(1)]: Number(temp), [Attr.fuel]: Number(fuel) });
    record.altitude = Number(altitude);
    record.cells = [configuredCell(ctx, parseInt(lac, 16), parseInt(cid, 16))];
  }
  // Extra fields are model-specific: kept positionally as io1, io2, ... (empty ones skipped).
  data?.split(',').forEach((v, i) => v.trim() && (a[indexed.io(i + 1)] = v.trim()));
  // A V1 report is confirmed with V4; others only when the server is configured to acknowledge.
  let reply: Buffer | undefined;
  if (id && type === 'V1') reply = text(`*HQ,${id},V4,V1,${compact(new Date(ctx.now))}#`);
  else if (id && ctx.config.ack === true) reply = text(`*HQ,${id},R12,${hms(ctx.now)}#`);
  return { deviceId: id, records: [record], reply };
}

// ---- text: network, link, heartbeat and text messages -----------------------------------------

const NBR = /^\*..,(\d+),NBR,(\d\d)(\d\d)(\d\d),(\d+),(\d+),\d+,\d+,((?:\d+,\d+,-?\d+,)+)(\d\d)(\d\d)(\d\d),([0-9A-Fa-f]{8})/;

/** NBR: `mcc,mnc,delay,count,(lac,cid,rssi)...,ddmmyy,status`; acknowledged with V4,NBR. */
function decodeNbr(s: string, ctx: DecodeContext): DecodeResult {
  const m = NBR.exec(s);
  if (!m) return {};
  const [, id, hh, mi, ss, mcc, mnc, list, dd, mo, yy, status] = m;
  const v = list.split(',').filter(Boolean).map(Number);
  const cells: Cell[] = [];
  for (let i = 0; i + 2 < v.length; i += 3) cells.push({ mcc: Number(mcc), mnc: Number(mnc), lac: v[i], cid: v[i + 1], rssi: v[i + 2] });
  const record: DeviceRecord = { time: utc(yy, mo, dd, hh, mi, ss), cells, attributes: statusAttributes(parseInt(status, 16)) };
  return { deviceId: id, records: [record], reply: text(`*HQ,${id},V4,NBR,${compact(new Date(ctx.now))}#`) };
}

const LINK = /^\*..,(\d+),LINK,(\d\d)(\d\d)(\d\d),(\d+),(\d+),(\d+),(\d+),(\d+),(\d\d)(\d\d)(\d\d),([0-9A-Fa-f]{8})/;

function decodeLink(s: string): DecodeResult {
  const m = LINK.exec(s);
  if (!m) return {};
  const [, id, hh, mi, ss, rssi, satellites, battery, steps, turnovers, dd, mo, yy, status] = m;
  const attributes = {
    ...statusAttributes(parseInt(status, 16)),
    [Attr.rssi]: Number(rssi),
    [Attr.batteryLevel]: Number(battery),
    [Attr.steps]: Number(steps),
    turnovers: Number(turnovers),
  };
  return { deviceId: id, records: [{ time: utc(yy, mo, dd, hh, mi, ss), satellites: Number(satellites), attributes }] };
}

const V3 = /^\*..,(\d+),V3,(\d\d)(\d\d)(\d\d),(\d{3})(\d+),(\d+),(.*),([0-9A-Fa-f]{4}),\d+,X,(\d\d)(\d\d)(\d\d),([0-9A-Fa-f]{8})#?$/;

/** V3: `<mcc><mnc>,count,(lac,cid,?,rssi)...,<battery hex>,<reboot>,X,ddmmyy,status`. */
function decodeV3(s: string): DecodeResult {
  const m = V3.exec(s);
  if (!m) return {};
  const [, id, hh, mi, ss, mcc, mnc, count, list, battery, dd, mo, yy, status] = m;
  const v = list.split(',');
  const cells: Cell[] = [];
  for (let i = 0; i < Math.min(Number(count), 16) && i * 4 + 1 < v.length; i++) {
    const [lac, cid] = [Number(v[i * 4]), Number(v[i * 4 + 1])];
    if (Number.isInteger(lac) && Number.isInteger(cid)) cells.push({ mcc: Number(mcc), mnc: Number(mnc), lac, cid });
  }
  const attributes = { ...statusAttributes(parseInt(status, 16)), batteryValue: parseInt(battery, 16) };
  return { deviceId: id, records: [{ time: utc(yy, mo, dd, hh, mi, ss), cells, attributes }] };
}

const VP1_CELLS = /^\*hq,(\d{15}),VP1,V,(\d+),(\d+),([^#]+)/i;
const VP1_FIX = /^\*hq,(\d{15}),VP1,[AB],(\d+)(\d\d\.\d+),([NS]),(\d+)(\d\d\.\d+),([EW]),(\d+\.\d+),(\d+\.\d+),(\d\d)(\d\d)(\d\d)/i;

/** VP1: a fix (date only) or, without GNSS, `mcc,mnc,lac,cid,rssi` cells separated by `Y`. */
function decodeVp1(s: string): DecodeResult {
  const c = VP1_CELLS.exec(s);
  if (c) {
    const [, id, mcc, mnc, list] = c;
    const cells = list.split('Y').flatMap((cell) => {
      const [lac, cid, rssi] = cell.split(',').map(Number);
      if (!Number.isInteger(lac) || !Number.isInteger(cid)) return [];
      return [{ mcc: Number(mcc), mnc: Number(mnc), lac, cid, ...(Number.isFinite(rssi) ? { rssi } : {}) }];
    });
    return { deviceId: id, records: [{ cells, attributes: {} }] };
  }
  const f = VP1_FIX.exec(s);
  if (!f) return {};
  const [, id, latD, latM, latH, lngD, lngM, lngH, speed, course, dd, mo, yy] = f;
  const record: DeviceRecord = {
    time: utc(yy, mo, dd),
    valid: true,
    lat: (Number(latD) + Number(latM) / 60) * (latH === 'S' ? -1 : 1),
    lng: (Number(lngD) + Number(lngM) / 60) * (lngH === 'W' ? -1 : 1),
    speed: knotsToKmh(Number(speed)),
    course: Number(course),
    attributes: {},
  };
  if (Math.abs(record.lat!) > 90 || Math.abs(record.lng!) > 180) throw new DecodeError('h02: coordinates out of range');
  return { deviceId: id, records: [record] };
}

/** Heartbeat (HTBT, V0): echoed back up to the type; HTBT may carry the battery level. */
function decodeHeartbeat(s: string, typeEnd: number): DecodeResult {
  const reply = text(`${s.slice(0, typeEnd)}#`);
  const m = /^\*..,(\d+),(?:HTBT|V0)(?:,(\d+))?/.exec(s);
  if (!m) return { reply };
  const records = m[2] !== undefined ? [{ attributes: { [Attr.batteryLevel]: Number(m[2]) } }] : [];
  return { deviceId: m[1], records, reply };
}

/** SMS: free text the device sends (settings report, command answer). */
function decodeSms(s: string): DecodeResult {
  const m = /^\*..,(\d+),SMS,([\s\S]+)#$/.exec(s);
  return m ? { deviceId: m[1], records: [{ attributes: { [Attr.result]: m[2] } }] } : {};
}

function decodeText(s: string, ctx: DecodeContext): DecodeResult {
  const typeStart = s.indexOf(',', s.indexOf(',') + 1) + 1;
  if (typeStart <= 0) return {};
  let typeEnd = s.indexOf(',', typeStart);
  if (typeEnd < 0) typeEnd = s.indexOf('#', typeStart);
  if (typeEnd < 0) return {};
  switch (s.slice(typeStart, typeEnd)) {
    case 'V0':
    case 'HTBT':
      return decodeHeartbeat(s, typeEnd);
    case 'NBR':
      return decodeNbr(s, ctx);
    case 'LINK':
      return decodeLink(s);
    case 'V3':
      return decodeV3(s);
    case 'VP1':
      return decodeVp1(s);
    case 'SMS':
      return decodeSms(s);
    default:
      return decodePosition(s, ctx);
  }
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame[0] === DOLLAR) return decodeBinary(frame, ctx);
  if (frame[0] === STAR) return decodeText(frame.toString('latin1').trim(), ctx);
  if (frame[0] === X) return {}; // 32-byte `X` frames carry nothing we decode
  throw new DecodeError('h02: unknown frame marker');
}

// ---- commands ---------------------------------------------------------------------------------

/** `*HQ,<id>,<type>,<hhmmss>,<params>#`; the time is the server's (UTC) when the command is built. */
const format = (ctx: EncodeContext, type: string, ...params: Array<string | number>) =>
  text(`*HQ,${ctx.deviceId},${type},${hms(ctx.now)}${params.map((p) => `,${p}`).join('')}#`);

const COMMANDS: Record<string, (c: Command, ctx: EncodeContext) => Buffer> = {
  alarmArm: (_c, ctx) => format(ctx, 'SCF', 0, 0),
  alarmDisarm: (_c, ctx) => format(ctx, 'SCF', 1, 1),
  engineStop: (_c, ctx) => format(ctx, 'S20', 1, 1),
  engineResume: (_c, ctx) => format(ctx, 'S20', 1, 0),
  positionPeriodic: (c, ctx) => {
    const frequency = String(c.attributes.frequency ?? '');
    return ctx.config.alternative === true ? format(ctx, 'D1', frequency) : format(ctx, 'S71', 22, frequency);
  },
  // `S71,22,30` becomes `*HQ,<id>,S71,<hhmmss>,22,30#`; a data string starting with `*` is sent as is.
  custom: (c, ctx) => {
    const data = String(c.attributes.data ?? '');
    if (data.startsWith('*')) return text(data);
    const [type, ...params] = data.split(',');
    return format(ctx, type, ...params);
  },
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`h02: unsupported command ${command.type}`);
  return build(command, ctx);
}

export const protocol: Protocol = {
  name: 'h02',
  defaultPort: 5013,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  carriesText: false,
  encode,
};
