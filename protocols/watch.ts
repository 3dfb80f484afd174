/**
 * 3G / Wonlex kids' and elderly watches: `[MM*id*LLLL*content]` (some firmware adds a 4-hex
 * index: `[MM*id*IIII*LLLL*content]`). MM is the maker code (3G, SG, CS, ZJ...), LLLL the
 * content length in hex. Content is `TYPE,field,field...`; voice and image contents are binary,
 * with `}` escapes (7d 01..05 for `} [ ] , *`) that the framer removes.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { DecodeError, FrameError } from './types.ts';
import type { AttrValue, Cell, Command, DecodeContext, DecodeResult, DeviceRecord, EncodeContext, Framer, Protocol } from './types.ts';

const MAX_FRAME = 128 * 1024;
/** Voice notes may come in many `JXTK` parts; the session keeps at most this much. */
const MAX_AUDIO = 1024 * 1024;
const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]
const ESCAPE = 0x7d; // }
const UNESCAPED: Record<number, number> = { 1: 0x7d, 2: 0x5b, 3: 0x5d, 4: 0x2c, 5: 0x2a };
const ESCAPED = new Map(Object.entries(UNESCAPED).map(([code, byte]) => [byte, Number(code)]));

// ---------------------------------------------------------------- framer

/** Brackets nest (Wi-Fi names may contain `[..]`), so a frame ends where the depth returns to zero. */
function frameEnd(buf: Buffer, start: number): number {
  let depth = 0;
  for (let i = start; i < buf.length; i++) {
    if (buf[i] === OPEN) depth++;
    else if (buf[i] === CLOSE && --depth === 0) return i + 1;
  }
  return -1;
}

function unescape(raw: Buffer): Buffer {
  if (!raw.includes(ESCAPE)) return raw;
  const out = Buffer.allocUnsafe(raw.length);
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] !== ESCAPE) {
      out[n++] = raw[i];
      continue;
    }
    const byte = UNESCAPED[raw[++i]];
    if (byte === undefined) throw new FrameError(`watch: bad escape at ${i}`);
    out[n++] = byte;
  }
  return out.subarray(0, n);
}

function createFramer(): Framer {
  return {
    next(buf) {
      let start = 0;
      while (start < buf.length && (buf[start] === 0x0d || buf[start] === 0x0a || buf[start] === 0x20)) start++;
      if (start === buf.length) return null;
      if (buf[start] !== OPEN) throw new FrameError('watch: frame must start with [');
      const end = frameEnd(buf, start);
      if (end < 0) {
        if (buf.length - start > MAX_FRAME) throw new FrameError('watch: frame too long');
        return null;
      }
      return { frame: unescape(buf.subarray(start, end)), consumed: end };
    },
  };
}

// ---------------------------------------------------------------- header

interface Message {
  maker: string;
  id: string;
  index?: string;
  type: string;
  /** Content after `TYPE,` (binary for voice and images). */
  data: Buffer;
}

const HEX4 = /^[0-9a-fA-F]{4}$/;

function parseMessage(frame: Buffer): Message {
  if (frame.length < 8 || frame[0] !== OPEN || frame[frame.length - 1] !== CLOSE) throw new DecodeError('watch: not a [..] frame');
  const body = frame.subarray(1, frame.length - 1);
  const fields: string[] = [];
  let at = 0;
  // maker * id * [index *] length * — the header is ASCII; the content may be binary
  while (fields.length < 4) {
    const star = body.indexOf(0x2a, at);
    if (star < 0 || star - at > 32) break;
    fields.push(body.toString('latin1', at, star));
    at = star + 1;
    if (fields.length === 3 && !(HEX4.test(fields[2]) && HEX4.test(body.toString('latin1', at, at + 4)) && body[at + 4] === 0x2a)) break;
  }
  const [maker, id, third, fourth] = fields;
  const index = fields.length === 4 ? third : undefined;
  const length = fields.length === 4 ? fourth : third;
  if (!/^[0-9A-Z]{2}$/i.test(maker ?? '') || !/^[0-9A-Za-z]{1,24}$/.test(id ?? '') || !HEX4.test(length ?? '')) {
    throw new DecodeError('watch: bad header');
  }
  const content = body.subarray(at);
  const comma = content.indexOf(0x2c);
  const type = content.toString('latin1', 0, comma < 0 ? content.length : comma);
  return { maker, id, index, type, data: comma < 0 ? Buffer.alloc(0) : content.subarray(comma + 1) };
}

/** `[MM*id*[index*]LLLL*content]`; LLLL counts the content bytes as sent. */
function frame(maker: string, id: string, index: string | undefined, content: Buffer): Buffer {
  const head = `[${maker}*${id}*${index ? `${index}*` : ''}${content.length.toString(16).padStart(4, '0')}*`;
  return Buffer.concat([Buffer.from(head, 'latin1'), content, Buffer.from(']')]);
}

function escape(data: Buffer): Buffer {
  let extra = 0;
  for (const b of data) if (ESCAPED.has(b)) extra++;
  if (!extra) return data;
  const out = Buffer.alloc(data.length + extra);
  let n = 0;
  for (const b of data) {
    const code = ESCAPED.get(b);
    if (code === undefined) out[n++] = b;
    else {
      out[n++] = ESCAPE;
      out[n++] = code;
    }
  }
  return out;
}

const replyTo = (m: Message, content: string) => frame(m.maker, m.id, m.index, Buffer.from(content, 'latin1'));

// ---------------------------------------------------------------- positions

/** Labelled fields of UD/UD2/UD_LTE/AL/WT reports; cells and Wi-Fi follow the status. */
const POSITION_FIELDS = ['date', 'time', 'validity', 'lat', 'latHem', 'lon', 'lonHem', 'speed', 'course', 'altitude', 'satellites', 'rssi', 'battery', 'steps', 'tumbles', 'status'] as const;
type PositionFields = Record<(typeof POSITION_FIELDS)[number], string>;

/** Status bits -> alarm, first match wins. */
const ALARM_BITS: Array<[number, string]> = [
  [0, Alarm.lowBattery],
  [1, Alarm.geofenceExit],
  [2, Alarm.geofenceEnter],
  [14, Alarm.powerCut],
  [16, Alarm.sos],
  [17, Alarm.lowBattery],
  [18, Alarm.geofenceExit],
  [19, Alarm.geofenceEnter],
  [20, Alarm.removing],
  [21, Alarm.fallDown],
  [22, Alarm.fallDown],
];
const MOTION_BIT = 4;

function number(s: string, what: string): number {
  const v = Number(s.trim());
  if (s.trim() === '' || !Number.isFinite(v)) throw new DecodeError(`watch: bad ${what}`);
  return v;
}

function parseTime(date: string, time: string): number {
  const d = /^(\d\d)(\d\d)(\d\d)$/.exec(date);
  const t = /^(\d\d)(\d\d)(\d\d)$/.exec(time);
  if (!d || !t) throw new DecodeError('watch: bad date/time');
  const [day, month, year, h, m, s] = [d[1], d[2], d[3], t[1], t[2], t[3]].map(Number);
  if (month < 1 || month > 12 || day < 1 || day > 31 || h > 23 || m > 59 || s > 59) throw new DecodeError('watch: bad date/time');
  return Date.UTC(2000 + year, month - 1, day, h, m, s);
}

/** Degrees with an optional hemisphere; S/W make the value negative whatever its sign. */
function coordinate(value: string, hemisphere: string, negative: string, limit: number): number {
  const v = number(value, 'coordinate');
  if (Math.abs(v) > limit) throw new DecodeError('watch: coordinate out of range');
  return hemisphere === negative ? -Math.abs(v) : v;
}

function decodePosition(text: string, alarmReport: boolean): DeviceRecord {
  const values = text.split(',');
  if (values.length < POSITION_FIELDS.length) throw new DecodeError('watch: short position report');
  const f = Object.fromEntries(POSITION_FIELDS.map((k, i) => [k, values[i]])) as PositionFields;
  if (f.validity !== 'A' && f.validity !== 'V') throw new DecodeError('watch: bad validity');
  if (!/^[0-9a-fA-F]{1,8}$/.test(f.status)) throw new DecodeError('watch: bad status');
  const status = parseInt(f.status, 16);
  const r: DeviceRecord = {
    time: parseTime(f.date, f.time),
    valid: f.validity === 'A',
    lat: coordinate(f.lat, f.latHem, 'S', 90),
    lng: coordinate(f.lon, f.lonHem, 'W', 180),
    speed: number(f.speed, 'speed'), // km/h
    course: number(f.course, 'course'),
    altitude: number(f.altitude, 'altitude'),
    satellites: number(f.satellites, 'satellites'),
    attributes: { [Attr.rssi]: number(f.rssi, 'rssi'), [Attr.batteryLevel]: number(f.battery, 'battery'), [Attr.steps]: number(f.steps, 'steps'), [Attr.status]: status },
  };
  const alarm = ALARM_BITS.find(([bit]) => status & (1 << bit))?.[1] ?? (alarmReport ? Alarm.general : undefined);
  if (alarm) r.attributes[Attr.alarm] = alarm;
  if (status & (1 << MOTION_BIT)) r.attributes[Attr.motion] = true;
  decodeNetwork(values.slice(POSITION_FIELDS.length), r);
  return r;
}

const decimal = (s: string | undefined) => (s !== undefined && /^\d{1,10}$/.test(s) ? Number(s) : undefined);
/** LAC and cell id come in decimal or, from some firmware, in hex. */
const decOrHex = (s: string | undefined) => (s === undefined ? undefined : /^\d{1,10}$/.test(s) ? Number(s) : /^[0-9a-fA-F]{1,8}$/.test(s) ? parseInt(s, 16) : undefined);

/** `count,ta,mcc,mnc,(lac,cid,rssi)*count,wifiCount,(name,mac,rssi)*wifiCount,...`; a malformed tail is skipped. */
function decodeNetwork(v: string[], r: DeviceRecord): void {
  const cellCount = decimal(v[0]);
  if (cellCount === undefined || cellCount > 32) return;
  let i = 1;
  if (cellCount > 0) {
    const mcc = v[i + 1] === '' ? 0 : decimal(v[i + 1]);
    const mnc = v[i + 2] === '' ? 0 : decimal(v[i + 2]);
    if (mcc === undefined || mnc === undefined) return; // firmware that reports FFFF here has no usable cells
    i += 3;
    const cells: Cell[] = [];
    for (let c = 0; c < cellCount; c++, i += 3) {
      const lac = decOrHex(v[i]);
      const cid = decOrHex(v[i + 1]);
      if (lac === undefined || cid === undefined) return;
      const rssi = decimal(v[i + 2]);
      cells.push(rssi === undefined ? { mcc, mnc, lac, cid } : { mcc, mnc, lac, cid, rssi });
    }
    r.cells = cells;
  }
  const wifiCount = decimal(v[i++]);
  if (!wifiCount || wifiCount > 32) return;
  const aps: string[] = [];
  for (let w = 0; w < wifiCount && i + 2 < v.length; w++, i += 3) {
    const mac = v[i + 1];
    const rssi = v[i + 2];
    if (/^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/.test(mac) && /^-?\d+$/.test(rssi)) aps.push(`${mac},${rssi}`);
  }
  if (aps.length) r.attributes.wifi = aps.join(';');
}

// ---------------------------------------------------------------- other messages

type Handler = (m: Message, ctx: DecodeContext) => DecodeResult;

const statusRecord = (ctx: DecodeContext, attributes: Record<string, AttrValue>): DeviceRecord => ({ time: ctx.now, attributes });
const fields = (m: Message) => m.data.toString('latin1').split(',');

/** Link keep-alive: `LK[,steps,tumbles,battery]`. */
const link: Handler = (m, ctx) => {
  const v = fields(m);
  const steps = decimal(v[0]);
  const battery = decimal(v[2]);
  const records = v.length >= 3 && steps !== undefined && battery !== undefined ? [statusRecord(ctx, { [Attr.steps]: steps, [Attr.batteryLevel]: battery })] : [];
  return { deviceId: m.id, records, reply: replyTo(m, 'LK') };
};

/** Health readings; each returns the attributes of one status record. */
const HEALTH: Record<string, (v: string[]) => Record<string, AttrValue>> = {
  PULSE: (v) => ({ heartRate: number(v[0], 'heart rate') }),
  HEART: (v) => ({ heartRate: number(v[0], 'heart rate') }),
  BLOOD: (v) => pressure(v),
  BPHRT: (v) => pressure(v),
  TEMP: (v) => ({ [indexed.temp(1)]: number(v[0], 'temperature') }),
  BTEMP2: (v) => (number(v[0], 'temperature flag') > 0 ? { [indexed.temp(1)]: number(v[1] ?? '', 'temperature') } : {}),
  OXYGEN: (v) => ({ bloodOxygen: number(v[1] ?? '', 'oxygen') }),
};

function pressure(v: string[]): Record<string, AttrValue> {
  const a: Record<string, AttrValue> = { pressureHigh: number(v[0], 'pressure'), pressureLow: number(v[1] ?? '', 'pressure') };
  if (v[2]) a.heartRate = number(v[2], 'heart rate');
  return a;
}

const health: Handler = (m, ctx) => {
  if (!m.data.length) return { deviceId: m.id };
  const attributes = HEALTH[m.type.toUpperCase()](fields(m));
  return { deviceId: m.id, records: Object.keys(attributes).length ? [statusRecord(ctx, attributes)] : [] };
};

/** One status record naming the file (the gateway fills in the name) and the file as data. */
function mediaResult(ctx: DecodeContext, m: Message, attribute: string, data: Buffer, extension: string): DecodeResult {
  return { deviceId: m.id, records: [statusRecord(ctx, { [attribute]: '' })], media: [{ record: 0, attribute, data: Buffer.from(data), extension }] };
}

/** `TK,<amr>` voice note; `TK,1` is the watch acknowledging ours. */
const voice: Handler = (m, ctx) => {
  if (m.data.length <= 1) return { deviceId: m.id };
  return { ...mediaResult(ctx, m, 'audio', m.data, 'amr'), reply: replyTo(m, 'TK,1') };
};

/** `JXTK,?,name,part,parts,<amr>`: parts collected in the session until the last one. */
const voicePart: Handler = (m, ctx) => {
  let commas = 0;
  let at = 0;
  while (commas < 4 && (at = m.data.indexOf(0x2c, at) + 1) > 0) commas++;
  if (commas < 4) throw new DecodeError('watch: bad JXTK header');
  const [, , part, parts] = m.data.toString('latin1', 0, at - 1).split(',');
  const current = number(part, 'part');
  const total = number(parts, 'parts');
  const chunks = (ctx.session.audio as Buffer[] | undefined) ?? [];
  const size = chunks.reduce((n, c) => n + c.length, 0) + m.data.length - at;
  ctx.session.audio = size > MAX_AUDIO ? [] : [...chunks, Buffer.from(m.data.subarray(at))];
  const reply = replyTo(m, 'JXTKR,1');
  if (current < total) return { deviceId: m.id, reply };
  const audio = Buffer.concat(ctx.session.audio as Buffer[]);
  delete ctx.session.audio;
  return { ...mediaResult(ctx, m, 'audio', audio, 'amr'), reply };
};

/** `img,<x>,<yyMMddHHmmss>,<jpeg>` from a remote capture. */
const image: Handler = (m, ctx) => {
  const first = m.data.indexOf(0x2c);
  const start = first + 1 + 12 + 1;
  if (first < 0 || start > m.data.length) throw new DecodeError('watch: bad img header');
  return mediaResult(ctx, m, 'image', m.data.subarray(start), 'jpg');
};

const echo: Handler = (m) => ({ deviceId: m.id, reply: replyTo(m, m.type) });

/** Watches echo a command keyword to confirm it: that text becomes a `result` record. */
const COMMAND_ACKS = new Set(['CR', 'SOS1', 'SOS2', 'SOS3', 'SOSSMS', 'LOWBAT', 'RESET', 'POWEROFF', 'REMOVE', 'SILENCETIME', 'REMIND', 'PHB', 'MESSAGE', 'UPLOAD', 'LZ', 'FLOWER', 'RCAPTURE']);
const commandAck: Handler = (m, ctx) => {
  const text = m.data.length ? `${m.type},${m.data.toString('utf8')}` : m.type;
  return { deviceId: m.id, records: [statusRecord(ctx, { [Attr.result]: text })] };
};

const HANDLERS: Record<string, Handler> = {
  LK: link,
  INIT: (m) => ({ deviceId: m.id, reply: replyTo(m, 'INIT,1') }),
  CONFIG: (m) => ({ deviceId: m.id, reply: replyTo(m, 'CONFIG,1') }),
  TKQ: echo,
  TKQ2: echo,
  TK: voice,
  JXTK: voicePart,
  img: image,
  ...Object.fromEntries(Object.keys(HEALTH).map((k) => [k, health])),
};

function handlerFor(type: string): Handler | undefined {
  if (/^(UD|AL|WT)/.test(type)) {
    const alarm = type.startsWith('AL');
    return (m) => ({
      deviceId: m.id,
      records: [decodePosition(m.data.toString('latin1'), alarm)],
      ...(alarm ? { reply: replyTo(m, 'AL') } : {}),
    });
  }
  const upper = type.toUpperCase();
  if (HEALTH[upper]) return health;
  if (COMMAND_ACKS.has(upper)) return commandAck;
  return HANDLERS[type];
}

function decode(buf: Buffer, ctx: DecodeContext): DecodeResult {
  if (buf.length > MAX_FRAME) throw new DecodeError('watch: frame too large');
  const m = parseMessage(buf);
  const handler = handlerFor(m.type);
  // Unknown types still identify the watch; they need no answer.
  return handler ? handler(m, ctx) : { deviceId: m.id };
}

// ---------------------------------------------------------------- encoder

const flag = (v: AttrValue | undefined) => (v === true || v === 'true' || v === 1 || v === '1' ? '1' : '0');
const str = (v: AttrValue | undefined) => (v === undefined ? '' : String(v));

/** Command type -> content text. */
const TEXT_COMMANDS: Record<string, (a: Command['attributes'], ctx: EncodeContext) => string> = {
  custom: (a) => str(a.data),
  positionSingle: () => 'CR',
  sosNumber: (a) => `SOS${str(a.index)},${str(a.phone)}`,
  alarmSos: (a) => `SOSSMS,${flag(a.enable)}`,
  alarmBattery: (a) => `LOWBAT,${flag(a.enable)}`,
  rebootDevice: () => 'RESET',
  powerOff: () => 'POWEROFF',
  alarmRemove: (a) => `REMOVE,${flag(a.enable)}`,
  silenceTime: (a) => `SILENCETIME,${str(a.data)}`,
  alarmClock: (a) => `REMIND,${str(a.data)}`,
  setPhonebook: (a) => `PHB,${str(a.data)}`,
  // The display takes UTF-16BE code units in hex.
  message: (a) => `MESSAGE,${Buffer.from(str(a.message), 'utf16le').swap16().toString('hex')}`,
  positionPeriodic: (a) => `UPLOAD,${str(a.frequency)}`,
  setTimezone: (a, ctx) => `LZ,${str(a.language)},${formatOffset(standardOffsetHours(str(a.timezone), ctx.now))}`,
  setIndicator: (a) => `FLOWER,${str(a.data)}`,
};

/** `+1`, `-11.5`, `+5.75`: sign always, at most two decimals. */
const formatOffset = (hours: number) => `${hours < 0 ? '-' : '+'}${Number(Math.abs(hours).toFixed(2))}`;

/** Standard (non-DST) UTC offset of a zone id or a `GMT+hh:mm` style offset, in hours. */
function standardOffsetHours(zone: string, now: number): number {
  const fixed = /^(?:GMT|UTC)?([+-])(\d{1,2})(?::?(\d\d))?$/.exec(zone.trim());
  if (fixed) return (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) + Number(fixed[3] ?? 0) / 60);
  const year = new Date(now).getUTCFullYear();
  // DST only ever adds time, so the smaller of the January and July offsets is the standard one.
  return Math.min(zoneOffset(zone, Date.UTC(year, 0, 1)), zoneOffset(zone, Date.UTC(year, 6, 1)));
}

function zoneOffset(zone: string, at: number): number {
  let name: string | undefined;
  try {
    name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(at).find((p) => p.type === 'timeZoneName')?.value;
  } catch {
    throw new Error(`watch: unknown time zone ${zone}`);
  }
  const m = /^GMT(?:([+-])(\d\d):(\d\d))?$/.exec(name ?? '');
  if (!m) throw new Error(`watch: unknown time zone ${zone}`);
  return m[1] ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) + Number(m[3]) / 60) : 0;
}

/**
 * The maker code and index style of the watch's own frames are per connection; the gateway may
 * pass them as `config.manufacturer` / `config.hasIndex`. Watches reporting as 3G take SG.
 */
function encode(command: Command, ctx: EncodeContext): Buffer {
  const maker = String(ctx.config.manufacturer ?? 'CS').replace(/^3G$/, 'SG');
  const index = ctx.config.hasIndex ? '0001' : undefined;
  if (command.type === 'voiceMessage') {
    const hex = str(command.attributes.data);
    if (!/^([0-9a-fA-F]{2})*$/.test(hex)) throw new Error('watch: voiceMessage data must be hex');
    // Only binary data is escaped; text commands go as they are.
    return frame(maker, ctx.deviceId, index, Buffer.concat([Buffer.from('TK,'), escape(Buffer.from(hex, 'hex'))]));
  }
  const text = TEXT_COMMANDS[command.type];
  if (!text) throw new Error(`watch: unsupported command ${command.type}`);
  return frame(maker, ctx.deviceId, index, Buffer.from(text(command.attributes, ctx), 'utf8'));
}

export const protocol: Protocol = {
  name: 'watch',
  defaultPort: 5093,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [...Object.keys(TEXT_COMMANDS), 'voiceMessage'],
  carriesText: true,
  encode,
};
