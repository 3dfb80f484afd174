/**
 * Meitrack GPRS protocol (MVT/T1/T3/T366/P88L/T622 ...).
 *
 *   frame      `$$<flag><len>,<imei>,<cmd>,<body>*<cs>\r\n`; `<len>` counts from the comma after it to the
 *              end of `\r\n`; `<cs>` = two hex digits, low byte of the sum of all bytes up to and with `*`.
 *   AAA / AFF  text event report: `<event>,<lat>,<lng>,<yymmddhhmmss>,<A|V>,<sats>,<rssi>,<km/h>,<course>,
 *              <hdop>,<alt>,<odometer m>,<runtime s>,<mcc|mnc|lac|cid>,<in><out>,<analog...>[,<event data>,
 *              <reserved>,<protocol>,<fuel>,<temps>,<count>,<data...>]` (AFF carries a buffer index first)
 *   CCC        binary batch of fixed 52-byte records, acknowledged with `CCC,<count>` (the device then deletes them)
 *   CCE        binary batch of tagged parameters (1-, 2-, 4-byte and variable-length groups)
 *   AAC        data-channel handshake, answered with `AAC,1`
 *   D03 / D00  photo upload: `D03,OK` starts it, `D00,<file>,<total>,<n>,<jpeg>` packets follow; every 8th packet
 *              the server asks for the next 8 with `D00,<file>,<n>`
 *   anything else is a command reply, kept as text (`result`).
 * Server commands are `@@<flag><len>,<imei>,<content>*<cs>\r\n`.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
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

const MAX_FRAME = 32768;
const COMMA = 0x2c;
const Y2000 = Date.UTC(2000, 0, 1);

// ---------------------------------------------------------------------------------------------- framing

/** `$$`, a flag byte, the decimal length, a comma: the length tells where the frame ends. */
function createFramer(): Framer {
  return {
    next(buf) {
      for (let i = 0; i < Math.min(2, buf.length); i++) if (buf[i] !== 0x24) throw new FrameError('meitrack: frame must start with $$');
      let len = 0;
      for (let i = 3; i < buf.length; i++) {
        const c = buf[i];
        if (c === COMMA) {
          if (i === 3 || len < 5) throw new FrameError('meitrack: bad length field');
          const total = i + len;
          if (total > MAX_FRAME) throw new FrameError('meitrack: frame too large');
          return buf.length >= total ? { frame: buf.subarray(0, total), consumed: total } : null;
        }
        if (c < 0x30 || c > 0x39 || i > 8) throw new FrameError('meitrack: bad length field');
        len = len * 10 + (c - 0x30);
      }
      return null;
    },
  };
}

// ---------------------------------------------------------------------------------------------- helpers

function checksum(text: string): string {
  let sum = 0;
  for (let i = 0; i < text.length; i++) sum += text.charCodeAt(i);
  return (sum & 0xff).toString(16).toUpperCase().padStart(2, '0');
}

/** `@@<flag><len>,<imei>,<content>*<cs>\r\n`, the shape of every server message. */
function serverMessage(flag: string, imei: string, content: string): Buffer {
  const length = 1 + imei.length + 1 + content.length + 5;
  const head = `@@${flag}${String(length).padStart(2, '0')},${imei},${content}*`;
  return Buffer.from(`${head}${checksum(head)}\r\n`, 'latin1');
}

const num = (s: string | undefined, what: string): number => {
  if (s === undefined || s === '' || !/^[-+]?\d+(\.\d+)?$/.test(s)) throw new DecodeError(`meitrack: bad ${what}: ${s}`);
  return Number(s);
};
const hexOr0 = (s: string | undefined): number => (s && /^[0-9a-fA-F]{1,8}$/.test(s) ? parseInt(s, 16) : 0);

/** Event codes that are alarms. */
const EVENT_ALARMS: Record<number, string> = {
  1: Alarm.sos,
  17: Alarm.lowBattery,
  18: Alarm.lowPower,
  19: Alarm.overspeed,
  20: Alarm.geofenceEnter,
  21: Alarm.geofenceExit,
  22: Alarm.powerRestored,
  23: Alarm.powerCut,
  36: Alarm.tow,
  44: Alarm.jamming,
  78: Alarm.accident,
  90: Alarm.hardCornering,
  91: Alarm.hardCornering,
  129: Alarm.hardBraking,
  130: Alarm.hardAcceleration,
  135: Alarm.fatigueDriving,
};

function setEvent(attrs: Record<string, AttrValue>, event: number): void {
  attrs[Attr.event] = event;
  if (EVENT_ALARMS[event]) attrs[Attr.alarm] = EVENT_ALARMS[event];
}

function setIo(attrs: Record<string, AttrValue>, input: number, output: number): void {
  attrs[Attr.input] = input;
  attrs[Attr.output] = output;
  for (let i = 0; i < 8; i++) {
    attrs[indexed.in(i + 1)] = (input & (1 << i)) !== 0;
    attrs[indexed.out(i + 1)] = (output & (1 << i)) !== 0;
  }
}

// ---------------------------------------------------------------------------------------------- text (AAA / AFF)

/** Hex analog values: battery/power scaling of older models; newer ones send hundredths of a volt. */
const LEGACY_SCALE: Record<string, [number, number]> = {
  MVT340: [(3 * 2) / 1024, (3 * 16) / 1024],
  MVT380: [(3 * 2) / 1024, (3 * 16) / 1024],
  MT90: [(3.3 * 2) / 4096, 1],
  T1: [(3.3 * 2) / 4096, (3.3 * 16) / 4096],
  T3: [(3.3 * 2) / 4096, (3.3 * 16) / 4096],
  MVT100: [(3.3 * 2) / 4096, (3.3 * 16) / 4096],
  MVT600: [(3.3 * 2) / 4096, (3.3 * 16) / 4096],
  MVT800: [(3.3 * 2) / 4096, (3.3 * 16) / 4096],
  TC68: [(3.3 * 2) / 4096, (3.3 * 16) / 4096],
  TC68S: [(3.3 * 2) / 4096, (3.3 * 16) / 4096],
};

function decodeAnalog(attrs: Record<string, AttrValue>, field: string, model: string): void {
  const parts = field.split('|');
  if (field.includes('.')) {
    // battery|power|rtc|mcu|gps, already in volts
    if (parts[0]) attrs[Attr.battery] = num(parts[0], 'battery');
    if (parts[1]) attrs[Attr.power] = num(parts[1], 'power');
    return;
  }
  for (let i = 0; i < 3; i++) if (parts[i]) attrs[indexed.adc(i + 1)] = hexOr0(parts[i]);
  const [bScale, pScale] = LEGACY_SCALE[model.toUpperCase()] ?? [0.01, 0.01];
  attrs[Attr.battery] = hexOr0(parts[3]) * bScale;
  attrs[Attr.power] = hexOr0(parts[4]) * pScale;
}

/** Temperatures `<id:2 hex><value:4 hex>|...`: hundredths (protocol >= 3) or signed degrees + hundredths. */
function decodeTemps(attrs: Record<string, AttrValue>, field: string, protocol: number): void {
  for (const t of field.split('|')) {
    if (!/^[0-9a-fA-F]{6}$/.test(t)) continue;
    const id = parseInt(t.slice(0, 2), 16);
    let value: number;
    if (protocol >= 3) value = ((parseInt(t.slice(2), 16) << 16) >> 16) * 0.01;
    else {
      const whole = (parseInt(t.slice(2, 4), 16) << 24) >> 24;
      value = whole + (whole < 0 ? -0.01 : 0.01) * parseInt(t.slice(4), 16);
    }
    attrs[indexed.temp(id)] = value;
  }
}

/** The free data fields after the count: taximeter state in the sixth. */
function decodeDataFields(attrs: Record<string, AttrValue>, values: string[]): void {
  if (values[1]) attrs.tempData = values[1];
  if (!values[5]) return;
  const d = values[5].split('|');
  attrs.taximeterOn = d[0].charAt(1) === '0';
  if (d[1] !== undefined) attrs.taximeterStart = d[1];
  if (d.length > 6) {
    attrs.taximeterEnd = d[2];
    attrs.taximeterDistance = Number(d[3]) || 0;
    attrs.taximeterFare = Number(d[4]) || 0;
    attrs.taximeterTrip = d[5];
    attrs.taximeterWait = d[6];
  }
}

function parseTime(s: string): number {
  const m = /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/.exec(s);
  if (!m) throw new DecodeError(`meitrack: bad time ${s}`);
  return Date.UTC(2000 + +m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
}

/** Event report fields, in order (the optional tail is handled after). */
function decodeEvent(fields: string[], model: string): DeviceRecord {
  if (fields.length < 16) throw new DecodeError('meitrack: short event report');
  const [event, lat, lng, time, fix, sats, rssi, speed, course, hdop, alt, odometer, runtime, cell, io, analog] = fields;
  const attrs: Record<string, AttrValue> = {};
  setEvent(attrs, num(event, 'event'));
  const rec: DeviceRecord = {
    time: parseTime(time),
    valid: fix === 'A',
    lat: num(lat, 'latitude'),
    lng: num(lng, 'longitude'),
    satellites: num(sats, 'satellites'),
    speed: num(speed, 'speed'),
    course: num(course, 'course'),
    hdop: num(hdop, 'hdop'),
    altitude: num(alt, 'altitude'),
    attributes: attrs,
  };
  attrs[Attr.rssi] = num(rssi, 'rssi');
  attrs[Attr.odometer] = num(odometer, 'odometer');
  attrs.runtime = runtime;
  const [mcc, mnc, lac, cid] = cell.split('|');
  if (Number(mcc) && Number(mnc)) rec.cells = [{ mcc: Number(mcc), mnc: Number(mnc), lac: hexOr0(lac), cid: hexOr0(cid), rssi: attrs[Attr.rssi] as number }];
  if (!/^[0-9a-fA-F]{4}$/.test(io)) throw new DecodeError('meitrack: bad io field');
  setIo(attrs, parseInt(io.slice(0, 2), 16), parseInt(io.slice(2), 16));
  decodeAnalog(attrs, analog, model);
  decodeTail(attrs, fields.slice(16), attrs[Attr.event] as number);
  return rec;
}

/** `<event data>,<reserved>,<protocol>,<fuel>,<temps>,<count>,<data...>`, any prefix of it. */
function decodeTail(attrs: Record<string, AttrValue>, tail: string[], event: number): void {
  const [eventData, , protocolField, fuel, temps, count] = tail;
  if (eventData) attrs[event === 37 ? Attr.driverUniqueId : 'eventData'] = eventData;
  const protocol = Number(protocolField) || 0;
  if (fuel && /^[0-9a-fA-F]{4}$/.test(fuel)) attrs[Attr.fuel] = parseInt(fuel.slice(0, 2), 16) + parseInt(fuel.slice(2), 16) * 0.01;
  if (temps) decodeTemps(attrs, temps, protocol);
  if (count !== undefined && tail.length > 6) decodeDataFields(attrs, tail.slice(6));
}

// ---------------------------------------------------------------------------------------------- binary CCC

const CCC_RECORD = 52;

function decodeCcc(r: Reader): DeviceRecord[] {
  r.skip(2 + 2 + 4); // protocol version, record length, records left in the device cache
  const records: DeviceRecord[] = [];
  while (r.remaining >= CCC_RECORD) {
    const attrs: Record<string, AttrValue> = {};
    setEvent(attrs, r.u8());
    const rec: DeviceRecord = { lat: r.i32le() * 1e-6, lng: r.i32le() * 1e-6, time: Y2000 + r.u32le() * 1000, valid: r.u8() === 1, attributes: attrs };
    rec.satellites = r.u8();
    const rssi = r.u8();
    attrs[Attr.rssi] = rssi;
    rec.speed = r.u16le();
    rec.course = r.u16le();
    rec.hdop = r.u16le() * 0.1;
    rec.altitude = r.u16le();
    attrs[Attr.odometer] = r.u32le();
    attrs.runtime = r.u32le();
    const cell: Cell = { mcc: r.u16le(), mnc: r.u16le(), lac: r.u16le(), cid: r.u16le(), rssi };
    if (cell.mcc) rec.cells = [cell];
    attrs[Attr.status] = r.u16le();
    attrs[indexed.adc(1)] = r.u16le();
    attrs[Attr.battery] = r.u16le() * 0.01;
    attrs[Attr.power] = r.u16le() * 0.01;
    r.skip(4); // geofence
    records.push(rec);
  }
  return records;
}

// ---------------------------------------------------------------------------------------------- binary CCE

type Setter = (rec: DeviceRecord, v: number) => void;
const attr =
  (key: string, scale = 1): Setter =>
  (rec, v) => {
    rec.attributes[key] = v * scale;
  };

/** One-byte parameters. */
const CCE_BYTE: Record<number, Setter> = {
  0x01: (rec, v) => setEvent(rec.attributes, v),
  0x05: (rec, v) => (rec.valid = v > 0),
  0x06: (rec, v) => (rec.satellites = v),
  0x07: attr(Attr.rssi),
  0x14: attr(Attr.output),
  0x15: attr(Attr.input),
  0x47: (rec, v) => {
    if (v > 0) rec.attributes.lock = v === 2;
  },
  0x97: attr(Attr.throttle),
  0x9d: attr(Attr.fuel),
  0xfe69: attr(Attr.batteryLevel),
};

/** Two-byte parameters (little-endian, unsigned unless noted). */
const CCE_WORD: Record<number, Setter> = {
  0x08: (rec, v) => (rec.speed = v),
  0x09: (rec, v) => (rec.course = v),
  0x0a: (rec, v) => (rec.hdop = v * 0.1),
  0x0b: (rec, v) => (rec.altitude = (v << 16) >> 16),
  0x16: attr(indexed.adc(1), 0.01),
  0x17: attr(indexed.adc(2), 0.01),
  0x18: attr(indexed.adc(3), 0.01),
  0x19: attr(Attr.battery, 0.01),
  0x1a: attr(Attr.power, 0.01),
  0x29: attr(Attr.fuel, 0.01),
  0x40: (rec, v) => setEvent(rec.attributes, v),
  0x91: attr(Attr.obdSpeed),
  0x92: attr(Attr.obdSpeed),
  0x98: attr(Attr.fuelUsed),
  0x99: attr(Attr.rpm),
  0x9c: attr(Attr.coolantTemp),
  0x9f: attr(indexed.temp(1)),
  0xc9: attr(Attr.fuelConsumption),
};

/** Four-byte parameters (little-endian). */
const CCE_DWORD: Record<number, Setter> = {
  0x02: (rec, v) => (rec.lat = (v | 0) * 1e-6),
  0x03: (rec, v) => (rec.lng = (v | 0) * 1e-6),
  0x04: (rec, v) => (rec.time = Y2000 + v * 1000),
  0x0c: attr(Attr.odometer),
  0x0d: attr('runtime'),
  0x25: (rec, v) => (rec.attributes[Attr.driverUniqueId] = String(v)),
  0x9b: attr('obdOdometer'),
  0xa0: attr(Attr.fuelUsed, 0.001),
  0xa2: attr(Attr.fuelConsumption, 0.01),
  0xfef4: attr(Attr.hours, 60000), // minutes
};

/** Variable-length parameters; each gets a reader bounded to its own bytes. */
function cceVariable(rec: DeviceRecord, id: number, r: Reader): void {
  const a = rec.attributes;
  if ((id >= 0x0e && id <= 0x10) || id === 0x12 || id === 0x13) {
    const cell: Cell = { mcc: r.u16le(), mnc: r.u16le(), lac: r.u16le(), cid: r.u32le(), rssi: r.i16le() };
    (rec.cells ??= []).push(cell);
  } else if (id >= 0x2a && id <= 0x31) {
    r.u8(); // sensor label
    a[indexed.temp(id - 0x2a)] = r.i16le() * 0.01;
  } else if (id === 0xfe31) {
    const alarmProtocol = r.u8();
    a.alarmType = r.u8();
    if (alarmProtocol === 0x02 && r.remaining > 1) {
      const file = r.ascii(r.remaining);
      a.image = `${file.slice(0, 4)}-${file.slice(4, 6)}-${file.slice(6, 8)}/${file}`;
    }
  } else if (id === 0xfe73) {
    r.u8(); // version
    a.tagName = r.ascii(r.u8());
    r.skip(6); // tag MAC
    a.tagBattery = r.u8();
    a.tagTemp = r.i16le() / 256;
    a.tagHumidity = r.i16le() / 256;
  } else if (id === 0xfea8) {
    for (let k = 1; k <= 3; k++) {
      const present = r.u8() > 0;
      const level = r.u8();
      if (present) a[k === 1 ? Attr.batteryLevel : `battery${k}Level`] = level;
    }
  }
}

function cceId(r: Reader): number {
  return r.peekU8() === 0xfe ? r.u16() : r.u8();
}

/** One CCE record, read from a reader bounded to the record's own bytes. */
function decodeCceRecord(r: Reader): DeviceRecord {
  const rec: DeviceRecord = { attributes: { [Attr.index]: r.u16le() } };
  const groups: Array<[Record<number, Setter>, () => number]> = [
    [CCE_BYTE, () => r.u8()],
    [CCE_WORD, () => r.u16le()],
    [CCE_DWORD, () => r.u32le()],
  ];
  for (const [table, read] of groups) {
    for (let n = r.u8(); n > 0; n--) {
      const id = cceId(r);
      const value = read();
      table[id]?.(rec, value);
    }
  }
  // variable-length group; devices pad records with 0xff, so a parameter overrunning the record ends it
  for (let n = r.u8(); n > 0 && r.remaining >= 2; n--) {
    const id = cceId(r);
    const len = r.u8();
    if (len > r.remaining) break;
    const at = r.pos;
    r.skip(len);
    cceVariable(rec, id, new Reader(r.buf, at, at + len));
  }
  return rec;
}

function decodeCce(r: Reader): DeviceRecord[] {
  r.skip(4); // records left in the device cache
  const count = r.u16le();
  const records: DeviceRecord[] = [];
  for (let i = 0; i < count; i++) {
    const len = r.u16le();
    const at = r.pos;
    r.skip(len);
    records.push(decodeCceRecord(new Reader(r.buf, at, at + len)));
  }
  return records;
}

// ---------------------------------------------------------------------------------------------- decode

interface Header {
  flag: string;
  imei: string;
  cmd: string;
  /** Offset of the command code. */
  cmdAt: number;
  /** Offset of the first body byte (after `<cmd>,`). */
  body: number;
}

function header(frame: Buffer): Header {
  if (frame.length < 10 || frame[0] !== 0x24 || frame[1] !== 0x24) throw new DecodeError('meitrack: not a $$ frame');
  const c1 = frame.indexOf(COMMA, 3);
  const c2 = c1 < 0 ? -1 : frame.indexOf(COMMA, c1 + 1);
  if (c1 < 0 || c2 < 0 || c2 - c1 > 21) throw new DecodeError('meitrack: bad header');
  const imei = frame.toString('latin1', c1 + 1, c2);
  if (!/^\d{6,20}$/.test(imei)) throw new DecodeError('meitrack: bad device id');
  const cmd = frame.toString('latin1', c2 + 1, c2 + 4);
  return { flag: String.fromCharCode(frame[2]), imei, cmd, cmdAt: c2 + 1, body: c2 + 5 };
}

/** End of the body: before `*<cs>` (and `\r\n`), where present. */
function bodyEnd(frame: Buffer): number {
  let end = frame.length;
  while (end > 0 && (frame[end - 1] === 0x0a || frame[end - 1] === 0x0d)) end--;
  return end >= 3 && frame[end - 3] === 0x2a ? end - 3 : end;
}

function textBody(frame: Buffer, h: Header): string {
  return frame.toString('latin1', Math.min(h.body, frame.length), Math.max(h.body, bodyEnd(frame)));
}

/** D00 photo packet: ask for the next eight after every eighth; the last one yields the file name. */
function decodePhoto(frame: Buffer, h: Header): DecodeResult {
  const [file, totalField, currentField] = frame.toString('latin1', h.body, Math.min(frame.length, h.body + 200)).split(',');
  const total = num(totalField, 'packet count');
  const current = num(currentField, 'packet number');
  if (current >= total - 1) return { deviceId: h.imei, records: [{ attributes: { image: file } }] };
  const reply = (current + 1) % 8 === 0 ? serverMessage('O', h.imei, `D00,${file},${current + 1}`) : undefined;
  return { deviceId: h.imei, reply };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const h = header(frame);
  const model = String(ctx.config.modelOverride ?? ctx.config.model ?? '');
  switch (h.cmd) {
    case 'AAC':
      return { deviceId: h.imei, reply: serverMessage(h.flag, h.imei, 'AAC,1') };
    case 'D03':
      return { deviceId: h.imei, reply: serverMessage('O', h.imei, 'D00,camera_picture.jpg,0') };
    case 'D00':
      return decodePhoto(frame, h);
    case 'CCC': {
      const records = decodeCcc(new Reader(frame, h.body, bodyEnd(frame)));
      return { deviceId: h.imei, records, reply: serverMessage(h.flag, h.imei, `CCC,${records.length}`) };
    }
    case 'CCE':
      return { deviceId: h.imei, records: decodeCce(new Reader(frame, h.body, bodyEnd(frame))) };
    case 'AAA':
    case 'AFF': {
      const fields = textBody(frame, h).split(',');
      // AFF (buffered event) carries the buffer index before the event code
      if (fields.length > 2 && !fields[1].includes('.') && fields[2].includes('.')) fields.shift();
      return { deviceId: h.imei, records: [decodeEvent(fields, model)] };
    }
    default:
      // a command reply, e.g. `C01,OK` or `D82,0`
      return { deviceId: h.imei, records: [{ attributes: { [Attr.result]: textBody(frame, { ...h, body: h.cmdAt }) } }] };
  }
}

// ---------------------------------------------------------------------------------------------- encode

const COMMANDS: Record<string, (c: Command, ctx: EncodeContext) => string> = {
  custom: (c) => String(c.attributes.data ?? ''),
  positionSingle: () => 'A10',
  engineStop: () => 'C01,0,12222',
  engineResume: () => 'C01,0,02222',
  alarmArm: (_c, ctx) => (ctx.config.alternative ? 'B21,1' : 'C01,0,22122'),
  alarmDisarm: (_c, ctx) => (ctx.config.alternative ? 'B21,0' : 'C01,0,22022'),
  requestPhoto: (c) => `D03,${Number(c.attributes.index) > 0 ? Number(c.attributes.index) : 1},camera_picture.jpg`,
  sendSms: (c) => `C02,0,${c.attributes.phone ?? ''},${c.attributes.message ?? ''}`,
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`meitrack: unsupported command ${command.type}`);
  return serverMessage('A', ctx.deviceId, build(command, ctx));
}

export const protocol: Protocol = {
  name: 'meitrack',
  defaultPort: 5020,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  carriesText: false,
  encode,
};
