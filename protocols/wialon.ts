/**
 * Wialon IPS 1.1 and 2.0: a text protocol, one packet per line, `#TYPE#body\r\n` on TCP and
 * `[2.0;]imei#TYPE#body\r\n` on UDP (the identity travels in every datagram).
 * Version 2.0 appends a CRC-16/ARC over the body to most packets.
 * Params are `name:type:value` (1 = integer, 2 = double, 3 = string).
 */
import { crc16Ibm, nmeaDegrees } from './binary.ts';
import { Alarm, Attr, indexed } from './attributes.ts';
import { DecodeError, FrameError } from './types.ts';
import type { AttrValue, Cell, Command, DecodeContext, DecodeResult, DeviceRecord, Framer, Protocol } from './types.ts';

const MAX_FRAME = 64 * 1024;

// ---------------------------------------------------------------- framer

/** Lines end with CR LF (a bare LF is tolerated). `#I#` photo packets carry `size` binary bytes after the line. */
function createFramer(): Framer {
  return {
    next(buf) {
      let start = 0;
      while (start < buf.length && (buf[start] === 0x0d || buf[start] === 0x0a)) start++;
      if (start < buf.length && !isLineStart(buf[start])) throw new FrameError('wialon: packet must start with # or an identifier');
      const lf = buf.indexOf(0x0a, start);
      if (lf < 0) {
        if (buf.length > MAX_FRAME) throw new FrameError('wialon: line too long');
        return null;
      }
      const end = lf > start && buf[lf - 1] === 0x0d ? lf - 1 : lf;
      const line = buf.subarray(start, end);
      const binary = photoSize(line);
      if (binary === 0) return { frame: line, consumed: lf + 1 };
      if (binary > MAX_FRAME) throw new FrameError('wialon: photo block too large');
      if (buf.length < lf + 1 + binary) return null;
      return { frame: buf.subarray(start, lf + 1 + binary), consumed: lf + 1 + binary };
    },
  };
}

const isLineStart = (b: number) => b === 0x23 || (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);

/** `#I#sz;ind;count;...` announces `sz` bytes of image data after the line. */
function photoSize(line: Buffer): number {
  const at = line.indexOf('#I#');
  if (at < 0 || at > 32) return 0;
  const size = Number(/^(\d{1,9});/.exec(line.subarray(at + 3, at + 16).toString('latin1'))?.[1] ?? 0);
  return size;
}

// ---------------------------------------------------------------- field patterns

/** Labelled fields of a data packet; `#SD#` carries the first ten. */
const DATA_FIELDS = ['date', 'time', 'lat', 'latSign', 'lon', 'lonSign', 'speed', 'course', 'altitude', 'sats', 'hdop', 'inputs', 'outputs', 'adc', 'ibutton', 'params'] as const;
type Fields = Partial<Record<(typeof DATA_FIELDS)[number], string>>;
const SHORT_COUNT = 10;

/** Answer codes of the specification, per packet kind. */
const CODES = {
  D: { ok: 1, structure: -1, time: 0, coords: 10, motion: 11, sats: 12, io: 13, adc: 14, params: 15, crc: 16 },
  SD: { ok: 1, structure: -1, time: 0, coords: 10, motion: 11, sats: 12, io: 12, adc: 12, params: 12, crc: 13 },
} as const;
type Problem = keyof (typeof CODES)['D'];

/** A field that breaks the specification; `problem` selects the answer code. */
class FieldError extends Error {
  constructor(readonly problem: Problem) {
    super(problem);
  }
}

const isNa = (s: string | undefined) => s === undefined || s === '' || s === 'NA';

function num(s: string | undefined, problem: Problem): number | undefined {
  if (isNa(s)) return undefined;
  const v = Number(s);
  if (!Number.isFinite(v)) throw new FieldError(problem);
  return v;
}

function parseTime(date: string | undefined, time: string | undefined, now: number): number {
  if (isNa(date) || isNa(time)) return now;
  const d = /^(\d\d)(\d\d)(\d\d)$/.exec(date!);
  const t = /^(\d\d)(\d\d)(\d\d)(?:\.\d+)?$/.exec(time!);
  if (!d || !t) throw new FieldError('time');
  const [day, month, year, h, m, s] = [d[1], d[2], d[3], t[1], t[2], t[3]].map(Number);
  if (month < 1 || month > 12 || day < 1 || day > 31 || h > 23 || m > 59 || s > 59) throw new FieldError('time');
  return Date.UTC(2000 + year, month - 1, day, h, m, s);
}

function coordinate(value: string | undefined, sign: string | undefined, negative: string): number | undefined {
  if (isNa(value) || isNa(sign)) return undefined;
  const v = num(value, 'coords')!;
  if (sign !== negative && sign !== (negative === 'S' ? 'N' : 'E')) throw new FieldError('coords');
  return (sign === negative ? -1 : 1) * nmeaDegrees(v);
}

/** One `#D#`/`#SD#` body (without CRC) -> record. */
function parseData(body: string, now: number): DeviceRecord {
  const parts = body.split(';');
  if (parts.length < SHORT_COUNT) throw new FieldError('structure');
  const f: Fields = {};
  DATA_FIELDS.forEach((name, i) => (f[name] = i === DATA_FIELDS.length - 1 ? parts.slice(i).join(';') || undefined : parts[i]));
  const r: DeviceRecord = { time: parseTime(f.date, f.time, now), attributes: {} };
  const lat = coordinate(f.lat, f.latSign, 'S');
  const lng = coordinate(f.lon, f.lonSign, 'W');
  const sats = num(f.sats, 'sats');
  if (lat !== undefined && lng !== undefined) {
    if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new FieldError('coords');
    Object.assign(r, { lat, lng, valid: sats === undefined || sats >= 3 });
    setIf(r, 'speed', num(f.speed, 'motion')); // km/h already
    setIf(r, 'course', num(f.course, 'motion'));
    setIf(r, 'altitude', num(f.altitude, 'motion'));
  }
  setIf(r, 'satellites', sats);
  setIf(r, 'hdop', num(f.hdop, 'sats'));
  setIf(r.attributes, Attr.input, num(f.inputs, 'io'));
  setIf(r.attributes, Attr.output, num(f.outputs, 'io'));
  if (!isNa(f.adc)) f.adc!.split(',').forEach((v, i) => setIf(r.attributes, indexed.adc(i + 1), num(v, 'adc')));
  if (!isNa(f.ibutton)) r.attributes[Attr.driverUniqueId] = f.ibutton!;
  if (!isNa(f.params)) applyParams(r, f.params!);
  return r;
}

function setIf<T extends object>(target: T, key: string, value: AttrValue | undefined): void {
  if (value !== undefined) (target as Record<string, unknown>)[key] = value;
}

// ---------------------------------------------------------------- params

const PARAM = /^([^:]*):([123]):(.*)$/s;

/** Typed param value: 1 and 2 are numbers, 3 is text (true/false become booleans). */
function paramValue(type: string, raw: string): AttrValue {
  if (type !== '3') {
    const v = Number(raw);
    if (raw.trim() !== '' && Number.isFinite(v)) return v;
  }
  if (/^true$/i.test(raw)) return true;
  if (/^false$/i.test(raw)) return false;
  return raw;
}

const toNumber = (v: AttrValue): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
};

/** Well-known param names -> shared vocabulary (numbers). */
const PARAM_ALIASES: Record<string, string> = {
  bat: Attr.batteryLevel,
  temp: Attr.deviceTemp,
  pwr_ext: Attr.power,
  pwr_int: Attr.battery,
};

function applyParams(r: DeviceRecord, text: string): void {
  const params = new Map<string, AttrValue>();
  for (const item of text.split(',')) {
    const m = PARAM.exec(item);
    if (m) params.set(m[1].toLowerCase(), paramValue(m[2], m[3]));
  }
  r.cells = takeCells(params);
  if (!r.cells.length) delete r.cells;
  for (const [key, value] of params) {
    const alias = PARAM_ALIASES[key];
    const n = toNumber(value);
    if (key === 'accuracy' && n !== undefined) r.precision = n;
    else if (key === 'sos') {
      if (n === 1) r.attributes[Attr.alarm] = Alarm.sos;
    } else if (alias && n !== undefined) r.attributes[alias] = n;
    else r.attributes[key] = value;
  }
}

/** `mcc`/`mnc`/`lac`/`cell_id`, then the same with suffixes 1..9 while all four are present. */
function takeCells(params: Map<string, AttrValue>): Cell[] {
  const cells: Cell[] = [];
  for (const suffix of ['', '1', '2', '3', '4', '5', '6', '7', '8', '9']) {
    const keys = ['mcc', 'mnc', 'lac', 'cell_id'].map((k) => k + suffix);
    const values = keys.map((k) => (params.has(k) ? toNumber(params.get(k)!) : undefined));
    if (values.some((v) => v === undefined)) {
      if (suffix) break;
      continue;
    }
    keys.forEach((k) => params.delete(k));
    const [mcc, mnc, lac, cid] = values as number[];
    cells.push({ mcc, mnc, lac, cid });
  }
  return cells;
}

// ---------------------------------------------------------------- packets

interface Packet {
  version?: string;
  id?: string;
  type: string;
  body: string;
}

const HEADER = /^(?:(\d\.\d);)?([^#;]*)#([A-Z]{1,2})#([\s\S]*)$/;

function parseHeader(frame: Buffer): Packet {
  const text = frame.toString('utf8').replace(/[\r\n]+$/, '');
  const m = HEADER.exec(text);
  if (!m) throw new DecodeError('wialon: not a #TYPE# packet');
  return { version: m[1], id: m[2] || undefined, type: m[3], body: m[4] };
}

const answer = (type: string, value: string | number = '') => Buffer.from(`#A${type}#${value}\r\n`);

/** Splits `body;CRC` when the last field is a 2.0 checksum; returns whether it matches. */
function splitCrc(body: string): { body: string; crcOk: boolean } {
  const at = body.lastIndexOf(';');
  const crc = parseCrc(body.slice(at + 1));
  if (at < 0 || crc === undefined) return { body, crcOk: true };
  const covered = body.slice(0, at + 1);
  return { body: body.slice(0, at), crcOk: crc16Ibm(Buffer.from(covered, 'utf8')) === crc };
}

const parseCrc = (s: string): number | undefined => (/^(0x)?[0-9a-f]{1,4}$/i.test(s) ? parseInt(s.replace(/^0x/i, ''), 16) : undefined);

type Handler = (p: Packet, ctx: DecodeContext) => DecodeResult;

function login(p: Packet, ctx: DecodeContext): DecodeResult {
  const values = p.body.split(';');
  const v2 = values[0].includes('.');
  const imei = (v2 ? values[1] : values[0])?.trim();
  if (v2) ctx.session.version = values[0];
  // The 2.0 login CRC is not enforced: rejecting a login over it would only drop the connection.
  if (!imei || imei === 'NA' || imei.length > 64) return { reply: answer('L', 0) };
  return { deviceId: imei, reply: answer('L', 1) };
}

/** `#D#` and `#SD#`: the field count tells whether a 2.0 CRC follows. */
function data(p: Packet, ctx: DecodeContext): DecodeResult {
  const kind = p.type === 'SD' ? 'SD' : 'D';
  const codes = CODES[kind];
  const fieldCount = kind === 'SD' ? SHORT_COUNT : DATA_FIELDS.length;
  const withCrc = p.body.split(';').length === fieldCount + 1;
  const { body, crcOk } = withCrc ? splitCrc(p.body) : { body: p.body, crcOk: true };
  const deviceId = p.id ?? ctx.deviceId;
  if (!crcOk) return { deviceId: p.id, reply: answer(kind, codes.crc) };
  try {
    const record = parseData(body, ctx.now);
    return { deviceId: p.id, records: deviceId ? [record] : [], reply: answer(kind, codes.ok) };
  } catch (e) {
    if (e instanceof FieldError) return { deviceId: p.id, reply: answer(kind, codes[e.problem]) };
    throw e;
  }
}

/** `#B#msg|msg|...[|CRC]`: archived data; the answer counts the messages taken. */
function blackBox(p: Packet, ctx: DecodeContext): DecodeResult {
  let messages = p.body.split('|');
  const crc = messages.length > 1 ? parseCrc(messages[messages.length - 1]) : undefined;
  if (crc !== undefined) {
    const covered = p.body.slice(0, p.body.lastIndexOf('|'));
    // The checksum covers the body up to the last separator; some firmware includes the separator.
    const ok = [covered, `${covered}|`].some((s) => crc16Ibm(Buffer.from(s, 'utf8')) === crc);
    if (!ok) return { deviceId: p.id, reply: answer('B', 0) };
    messages = messages.slice(0, -1);
  }
  const records: DeviceRecord[] = [];
  for (const m of messages) {
    try {
      const r = parseData(m, ctx.now);
      r.attributes[Attr.archive] = true;
      records.push(r);
    } catch (e) {
      if (!(e instanceof FieldError)) throw e;
    }
  }
  const known = p.id ?? ctx.deviceId;
  return { deviceId: p.id, records: known ? records : [], reply: answer('B', records.length) };
}

/** `#M#text` from the driver: a `result` record (2.0 appends `;CRC`). */
function message(p: Packet, ctx: DecodeContext): DecodeResult {
  let text = p.body;
  if ((p.version ?? ctx.session.version) === '2.0') {
    const split = splitCrc(text);
    if (!split.crcOk) return { deviceId: p.id, reply: answer('M', '01') };
    text = split.body;
  }
  const known = p.id ?? ctx.deviceId;
  const record: DeviceRecord = { time: ctx.now, attributes: { [Attr.result]: text } };
  return { deviceId: p.id, records: known ? [record] : [], reply: answer('M', 1) };
}

/** `#I#sz;ind;count;...`: photo blocks are acknowledged so the device moves on; images are not kept. */
function photo(p: Packet): DecodeResult {
  const ind = /^\d+;(\d+);/.exec(p.body)?.[1];
  if (ind === undefined) throw new DecodeError('wialon: bad photo header');
  return { deviceId: p.id, reply: answer('I', `${ind};1`) };
}

const HANDLERS: Record<string, Handler> = {
  L: login,
  D: data,
  SD: data,
  B: blackBox,
  M: message,
  P: (p) => ({ deviceId: p.id, reply: answer('P') }),
  // `#AM#1`: the device's answer to a message the server sent it (`#AM#0`: taken, but not shown)
  AM: (p) => ({ deviceId: p.id, commandAck: true }),
  I: photo,
};

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length > MAX_FRAME) throw new DecodeError('wialon: frame too large');
  const lineEnd = frame.indexOf(0x0a);
  const packet = parseHeader(lineEnd >= 0 && frame.includes('#I#') ? frame.subarray(0, lineEnd) : frame);
  const handler = HANDLERS[packet.type];
  if (!handler) throw new DecodeError(`wialon: unknown packet type ${packet.type}`);
  if (packet.version) ctx.session.version = packet.version;
  return handler(packet, ctx);
}

// ---------------------------------------------------------------- encoder

function encode(command: Command): Buffer {
  switch (command.type) {
    case 'message':
      return Buffer.from(`#M#${String(command.attributes.message ?? '')}\r\n`, 'utf8');
    case 'custom': {
      const data = String(command.attributes.data ?? '');
      return Buffer.from(data.endsWith('\r\n') ? data : `${data}\r\n`, 'utf8');
    }
    default:
      throw new Error(`wialon: unsupported command ${command.type}`);
  }
}

export const protocol: Protocol = {
  name: 'wialon',
  defaultPort: 5039,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: ['custom', 'message'],
  carriesText: true,
  commandAcks: true,
  encode,
};
