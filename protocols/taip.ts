/**
 * TAIP (Trimble ASCII Interface Protocol) and the vendor reports built on it.
 *
 * A message is `>R<type><data>;<key>=<value>;...;ID=<id>;#<index>;*<checksum><`: the checksum is
 * the XOR of every character from `>` to `*` (many devices send a wrong one, so it is not checked).
 *
 *   PV  `<seconds of day 5><lat ±2+5><lng ±3+5><speed mph 3><heading 3><source 1><age 1>`
 *   EV  `<event 2><GPS week 4><day of week 1>` + the PV fields (a full date)
 *   GP, PI           `<ddmmyy><hhmmss>` + position, speed, course + model-specific status
 *   CQ, CV, BR, US   the same after a 2-digit event (US: `US<event>,` and comma-separated extras)
 *   UV  `UV<kind 2><event 2-3>,NT003,<yymmddhhmmss + position>,...`: 00 info, 01 alarm, 02 fuel, 03 position
 * Positions are `±DDddddd`/`±DDDddddd` (degrees with 5 decimals) or `±DDMM.MMMM`/`±DDDMM.MMMM`.
 * AL (altitude), LN (long navigation), CP (compact position), TT and others carry nothing kept.
 *
 * Replies: a message carrying `#<index>` is acknowledged with `>ACK;ID=<id>;#<index>;*<cs><`, or
 * `>SAK;ID=<id>;#IP<n>:<index><` for the `#IP` form; one without an index gets its ID echoed.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import {
  DecodeError,
  FrameError,
  type AttrValue,
  type Command,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type EncodeContext,
  type Framer,
  type Protocol,
} from './types.ts';

const MAX_FRAME = 2048;
const GT = 0x3e;
const LT = 0x3c;
const MPH = 1.609344;
const GPS_EPOCH = Date.UTC(1980, 0, 6);
const DAY = 86400e3;

type Attrs = Record<string, AttrValue>;

/** A message runs from `>` to `<`; bytes between messages (line breaks) are skipped. */
function createFramer(): Framer {
  return {
    next(buffer) {
      const start = buffer.indexOf(GT);
      if (start < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('taip: no message start');
        return null;
      }
      const end = buffer.indexOf(LT, start);
      if (end < 0) {
        if (buffer.length - start > MAX_FRAME) throw new FrameError('taip: message too long');
        return null;
      }
      return { frame: buffer.subarray(start, end + 1), consumed: end + 1 };
    },
  };
}

export const checksum = (s: string): string => {
  let x = 0;
  for (let i = 0; i < s.length; i++) x ^= s.charCodeAt(i);
  return x.toString(16).toUpperCase().padStart(2, '0');
};

// ---- positions --------------------------------------------------------------------------------

const LAT_LNG = '(?:([-+]\\d{2})(\\d{5})([-+]\\d{3})(\\d{5})|([-+])(\\d{2})(\\d{2}\\.\\d+)([-+])(\\d{3})(\\d{2}\\.\\d+))';
const MOTION = '(\\d{3})(\\d{3})';

function coordinates(g: string[]): [number, number] {
  if (g[0] !== undefined) {
    const deg = (d: string, f: string) => Math.sign(Number(`${d}1`)) * (Math.abs(Number(d)) + Number(f) / 1e5);
    return [deg(g[0], g[1]), deg(g[2], g[3])];
  }
  const dm = (sign: string, d: string, m: string) => (sign === '-' ? -1 : 1) * (Number(d) + Number(m) / 60);
  return [dm(g[4], g[5], g[6]), dm(g[7], g[8], g[9])];
}

function fix(time: number, g: string[], valid: boolean, attributes: Attrs = {}): DeviceRecord {
  const [lat, lng] = coordinates(g.slice(0, 10));
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('taip: coordinates out of range');
  return { time, valid, lat, lng, speed: Number(g[10]) * MPH, course: Number(g[11]) % 360, attributes };
}

/** PV: time of day only, placed on the day of `now` (the previous day when it would be ahead). */
const PV = new RegExp(`^PV(\\d{5})${LAT_LNG}${MOTION}(\\d)(\\d)`);
/** EV: event, GPS week and day, then PV. */
const EV = new RegExp(`^EV(\\d{2})(\\d{4})(\\d)(\\d{5})${LAT_LNG}${MOTION}(\\d)(\\d)`);

/** Source 9 is "no fix"; age 2 is a fresh fix (0 none, 1 older than 10 s). */
const pvValid = (source: string, age: string) => source !== '9' && age === '2';

function decodePv(body: string, now: number): DeviceRecord[] {
  const m = PV.exec(body);
  if (!m) return [];
  let time = Math.floor(now / DAY) * DAY + Number(m[1]) * 1000;
  if (time > now + 3600e3) time -= DAY;
  return [fix(time, m.slice(2, 14), pvValid(m[14], m[15]))];
}

function decodeEv(body: string): DeviceRecord[] {
  const m = EV.exec(body);
  if (!m) return [];
  const time = GPS_EPOCH + (Number(m[2]) * 7 + Number(m[3])) * DAY + Number(m[4]) * 1000;
  return [fix(time, m.slice(5, 17), pvValid(m[17], m[18]), { [Attr.event]: Number(m[1]) })];
}

// ---- dated vendor reports -----------------------------------------------------------------------

/** Types with a 2-digit event before the date; US separates its extras with commas. */
const WITH_EVENT = new Set(['CQ', 'CV', 'BR', 'US']);
const DATED = new RegExp(`^(GP|PI|CQ|CV|BR|US)(\\d{2})?,?(\\d{2})(\\d{2})(\\d{2})(\\d{2})(\\d{2})(\\d{2})${LAT_LNG}${MOTION}([^,]*)(?:,(.*))?$`);
/** GP status: fix mode (0 none, 2 2D, 3 3D), data age, inputs, event, HDOP. */
const GP_STATUS = /^([0-9])([0-9A-F]{2})([0-9A-F]{2})(\d{2})(\d{2})?/;
/** CQ/CV/BR status: inputs, a status byte, supply (0.1 V), odometer (m, hex); then GPS power, fix mode, PDOP, satellites, ... RSSI. */
const CQ_STATUS = /^([0-9A-F]{2})([0-9A-F]{2})(\d{3})([0-9A-F]{8})(?:[01]([0-9])(\d{2})(\d{2})[0-9A-F]{4}[01][0-5](\d{2}))?/;

function decodeDated(body: string, now: number): DeviceRecord[] {
  const m = DATED.exec(body);
  if (!m) return [];
  const [type, event, dd, mo, yy, hh, mi, ss] = m.slice(1, 9);
  const status = m[21];
  const extras = m[22]?.split(',') ?? [];
  const a: Attrs = {};
  if (WITH_EVENT.has(type) && event !== undefined) a[Attr.event] = Number(event);
  let valid = true;
  const gp = type === 'GP' ? GP_STATUS.exec(status) : null;
  if (gp) {
    valid = gp[1] === '2' || gp[1] === '3';
    Object.assign(a, { [Attr.input]: parseInt(gp[3], 16), [Attr.event]: Number(gp[4]) });
  }
  // PI's status fields follow another, undocumented layout: only its position is kept.
  const cq = type === 'CQ' || type === 'CV' || type === 'BR' ? CQ_STATUS.exec(status) : null;
  if (cq) {
    Object.assign(a, { [Attr.input]: parseInt(cq[1], 16), [Attr.power]: Number(cq[3]) / 10, [Attr.odometer]: parseInt(cq[4], 16) });
    if (cq[5] !== undefined) {
      valid = cq[5] === '2' || cq[5] === '3';
      Object.assign(a, { pdop: Number(cq[6]), [Attr.rssi]: Number(cq[8]) });
    }
  }
  if (type === 'US') {
    valid = status[0] === '2' || status[0] === '3';
    usExtras(extras, a);
  }
  // A device without a clock sends a zero date (or 1970): its last position, if any, at reception time.
  const dated = Number(mo) >= 1 && Number(dd) >= 1 && Number(yy) < 70;
  const [lat, lng] = coordinates(m.slice(9, 19));
  if (!dated && lat === 0 && lng === 0) return [{ attributes: a }];
  const time = dated ? Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss)) : now;
  const f = fix(time, m.slice(9, 21), valid && dated, a);
  if (type === 'GP' && gp?.[5] !== undefined) f.hdop = Number(gp[5]);
  if (cq?.[7] !== undefined) f.satellites = Number(cq[7]);
  return [f];
}

/** US extras: `<flags>,<io>,<power ×100 4><battery ×100 4>,<?>,<temperature>,...`. */
function usExtras(extras: string[], a: Attrs): void {
  const supply = extras[2];
  if (supply && /^\d{8}$/.test(supply)) Object.assign(a, { [Attr.power]: Number(supply.slice(0, 4)) / 100, [Attr.battery]: Number(supply.slice(4)) / 100 });
  const temp = extras[4];
  if (temp && /^[-+]\d+(\.\d+)?$/.test(temp)) a[indexed.temp(1)] = Number(temp);
}

// ---- UV reports ---------------------------------------------------------------------------------

const UV_POSITION = new RegExp(`^(\\d{2})(\\d{2})(\\d{2})(\\d{2})(\\d{2})(\\d{2})${LAT_LNG}${MOTION}`);
const UV_ALARMS: Record<number, string> = { 111: Alarm.idle, 120: Alarm.hardAcceleration, 121: Alarm.hardBraking };

function decodeUv(body: string): DeviceRecord[] {
  const fields = body.split(',');
  const head = /^UV(\d{2})(\d{2,3})$/.exec(fields[0]);
  if (!head) return [];
  const [kind, event] = [Number(head[1]), Number(head[2])];
  const a: Attrs = { [Attr.event]: event };
  if (kind === 0) {
    if (fields[5] !== undefined) a.versionFw = fields[5];
    return [{ attributes: a }];
  }
  if (kind === 1 && UV_ALARMS[event]) a[Attr.alarm] = UV_ALARMS[event];
  if (kind === 2) {
    const used = Number(fields[fields.length - 1]);
    if (Number.isFinite(used)) a[Attr.fuelUsed] = used / 10;
  }
  const m = UV_POSITION.exec(fields[2] ?? '');
  if (!m) return [{ attributes: a }];
  const [yy, mo, dd, hh, mi, ss] = m.slice(1, 7).map(Number);
  return [fix(Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss), m.slice(7, 19), true, a)];
}

// ---- parameters and entry -----------------------------------------------------------------------

/** `;KEY=value` parameters of EV reports: satellites, battery (mV), odometer, altitude, inputs/outputs. */
function parameters(params: Map<string, string>, r: DeviceRecord): void {
  const n = (k: string) => (params.has(k) && Number.isFinite(Number(params.get(k))) ? Number(params.get(k)) : undefined);
  const sv = n('SV');
  if (sv !== undefined) r.satellites = sv;
  const bl = n('BL');
  if (bl !== undefined) r.attributes[Attr.battery] = bl / 1000;
  const vo = n('VO');
  if (vo !== undefined) r.attributes[Attr.odometer] = vo;
  const al = n('AL');
  if (al !== undefined) r.altitude = al;
  const ad = n('AD');
  if (ad !== undefined) r.attributes[indexed.adc(1)] = ad / 1000;
  const io = params.get('IO');
  if (io && /^\d+$/.test(io)) {
    // IO=<outputs><inputs><...> digits as the device writes them; bit 1 of inputs is ignition.
    r.attributes[Attr.output] = Number(io[0]);
    if (io.length > 1) {
      r.attributes[Attr.input] = Number(io[1]);
      r.attributes[Attr.ignition] = (Number(io[1]) & 1) === 1;
    }
  }
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const text = frame.toString('latin1');
  const start = text.indexOf('>');
  if (start < 0) throw new DecodeError('taip: no message start');
  let end = text.indexOf('<', start);
  if (end < 0) end = text.length;
  const parts = text.slice(start + 1, end).trim().split(';');
  const body = parts[0];
  if (body[0] !== 'R' || body.length < 3) return {};
  let id: string | undefined;
  let index: string | undefined;
  const params = new Map<string, string>();
  for (const part of parts.slice(1)) {
    const p = part.split('*')[0]; // `#7AD7*51`: index and checksum without a separator
    if (p.startsWith('ID=')) id = p.slice(3);
    else if (p.startsWith('#')) index = p;
    else if (p.includes('=')) params.set(p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1));
  }
  const type = body.slice(1, 3);
  const payload = body.slice(1);
  let records: DeviceRecord[];
  if (type === 'PV') records = decodePv(payload, ctx.now);
  else if (type === 'EV') records = decodeEv(payload);
  else if (type === 'UV') records = decodeUv(payload);
  else if (/^(GP|PI|CQ|CV|BR|US)$/.test(type)) records = decodeDated(payload, ctx.now);
  else records = [];
  for (const r of records) parameters(params, r);
  return { deviceId: id || undefined, records, reply: id ? reply(id, index) : undefined };
}

function reply(id: string, index: string | undefined): Buffer {
  if (!index) return Buffer.from(id, 'latin1');
  if (index.startsWith('#IP')) return Buffer.from(`>SAK;ID=${id};${index}<`, 'latin1');
  const s = `>ACK;ID=${id};${index};*`;
  return Buffer.from(`${s}${checksum(s)}<`, 'latin1');
}

// ---- commands -----------------------------------------------------------------------------------

/** `custom`: the data as a TAIP query or set message (`>QPV<` ...), the ID and checksum added when absent. */
function encode(command: Command, ctx: EncodeContext): Buffer {
  if (command.type !== 'custom') throw new Error(`taip: unsupported command ${command.type}`);
  const data = String(command.attributes.data ?? '');
  if (data.startsWith('>')) return Buffer.from(data, 'latin1');
  const s = `>${data};ID=${ctx.deviceId};*`;
  return Buffer.from(`${s}${checksum(s)}<`, 'latin1');
}

export const protocol: Protocol = {
  name: 'taip',
  defaultPort: 5031,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: ['custom'],
  carriesText: false,
  encode,
};
