/**
 * JT/T 808 (Huabao and the many devices that speak it), plus the vendor extensions seen in the field.
 *
 * Frame: 0x7e | msgId u16 | attributes u16 | [version u8] | terminal phone (6 BCD, 10 in 2019) | serial u16
 *        | [packet total u16, packet no u16] | body | xor checksum | 0x7e, with 0x7e/0x7d escaped as
 *        7d 02 / 7d 01 between the delimiters. A few devices use 0xe7 as delimiter with a 7-byte id.
 * Times are BCD in the terminal's zone (GMT+8 by default, `config.timezone` overrides).
 * Some devices also send plain text frames in parentheses, e.g. `(id,1,001,BASE,2,TIME)`.
 */
import { Attr } from '../attributes.ts';
import { Reader } from '../binary.ts';
import { FrameError, type AttrValue, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from '../types.ts';
import { MSG, ACK_ONLY, JC_MODELS, trimJava, gbk, utf16be, newRecord, set, zoneOffset, readDate, type Envelope, formatMessage, generalResponse, type Header, readHeader } from './message.ts';
import { signedMagnitude, type LocationContext, decodeLocation, decodeBatch } from './location.ts';
import { decodeLocation2, decodeTransparent } from './reports.ts';

const MAX_FRAME = 4096; // body length is 10 bits; escaping can at most double it
const MAX_GARBAGE = 1024; // bytes tolerated before a start marker (some devices prefix "$$")

// ---------------------------------------------------------------------------------------------
// Framer

const isStart = (b: number) => b === 0x7e || b === 0xe7 || b === 0x28; // '(' starts a text frame

/** Un-escape the bytes between (and including) the delimiters. An invalid pair is kept as is. */
function unescape(buf: Buffer, start: number, end: number): Buffer {
  const alt = buf[start] === 0xe7;
  const out = Buffer.allocUnsafe(end - start + 1);
  let n = 0;
  for (let i = start; i <= end; i++) {
    const b = buf[i];
    const ext = i < end ? buf[i + 1] : -1;
    let v = -1;
    if (!alt && b === 0x7d) v = ext === 0x01 ? 0x7d : ext === 0x02 ? 0x7e : -1;
    else if (alt && b === 0xe6) v = ext === 0x01 ? 0xe6 : ext === 0x02 ? 0xe7 : -1;
    else if (alt && b === 0x3e) v = ext === 0x01 ? 0x3e : ext === 0x02 ? 0x3d : -1;
    if (v >= 0) {
      out[n++] = v;
      i++;
    } else out[n++] = b;
  }
  return out.subarray(0, n);
}

function createFramer(): Framer {
  return {
    next(buf) {
      let start = 0;
      // skip junk, and a lone closing delimiter left over from a frame we joined half-way
      while (start < buf.length && (!isStart(buf[start]) || (buf[start] !== 0x28 && buf[start + 1] === buf[start]))) start++;
      if (start > MAX_GARBAGE) throw new FrameError('jt808: no frame start');
      if (start + 1 >= buf.length) return null;
      const delimiter = buf[start] === 0x28 ? 0x29 : buf[start];
      const end = buf.indexOf(delimiter, start + 1);
      if (end < 0) {
        if (buf.length - start > MAX_FRAME) throw new FrameError('jt808: frame too long');
        return null;
      }
      const frame = delimiter === 0x29 ? buf.subarray(start, end + 1) : unescape(buf, start, end);
      return { frame, consumed: end + 1 };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Other terminal messages

function decodeDriverIdentity(r: Reader, lc: LocationContext): DeviceRecord {
  const rec = newRecord();
  set(rec, 'cardStatus', r.u8());
  rec.time = readDate(r, lc.offset);
  set(rec, 'cardResult', r.u8());
  set(rec, 'driver', r.ascii(r.u8()));
  set(rec, 'cardCode', trimJava(r.ascii(20)));
  set(rec, 'cardAgency', r.ascii(r.u8()));
  set(rec, 'cardValidity', r.hex(4));
  return rec;
}

/** Terminal parameters (reply to 0x8104 / 0x8106): id -> attribute name and how to read it. */
const PARAMETERS: Record<number, [string, (r: Reader, len: number) => AttrValue]> = {
  0x0001: ['heartbeatInterval', (r) => r.u32()],
  0x0010: ['apn', (r, len) => gbk.decode(r.bytes(len))],
  0x0013: ['server', (r, len) => gbk.decode(r.bytes(len))],
  0x0018: ['port', (r) => r.u32()],
  0x0027: ['sleepReportInterval', (r) => r.u32()],
  0x0028: ['emergencyReportInterval', (r) => r.u32()],
  0x0029: ['defaultReportInterval', (r) => r.u32()],
  0x0055: ['overspeedThreshold', (r) => r.u32()],
  0x0056: ['speedLimitDuration', (r) => r.u32()],
  0x0080: [Attr.odometer, (r) => r.u32() * 100],
  0x0083: ['plateNumber', (r, len) => trimJava(gbk.decode(r.bytes(len)))],
};

function decodeParameters(r: Reader, now: number): DeviceRecord {
  const rec = newRecord(now);
  r.skip(3); // response serial, parameter count
  while (r.remaining >= 5) {
    const id = r.u32();
    const len = r.u8();
    const end = r.pos + len;
    if (end > r.end) break;
    const p = PARAMETERS[id];
    if (p) set(rec, p[0], p[1](r, len));
    r.pos = end;
  }
  return rec;
}

function decodeAcceleration(r: Reader, now: number): DeviceRecord {
  const samples: string[] = [];
  while (r.remaining > 0) {
    r.skip(6); // sample time
    samples.push(`[${signedMagnitude(r.u16())},${signedMagnitude(r.u16())},${signedMagnitude(r.u16())}]`);
  }
  const rec = newRecord(now);
  set(rec, 'gSensor', `[${samples.join(',')}]`);
  return rec;
}

function resultRecord(text: string, now: number): DeviceRecord {
  const rec = newRecord(now);
  set(rec, Attr.result, text);
  return rec;
}

/** `(id,...)` text frames: `BASE,2` asks for the time (echoed with TIME replaced), anything else is a reply. */
function decodeText(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const sentence = frame.toString('latin1');
  if (sentence.includes('BASE,2')) {
    const t = new Date(ctx.now).toISOString().replace(/[-T:]/g, '').slice(0, 14); // yyyyMMddHHmmss UTC
    return { reply: Buffer.from(sentence.replace('TIME', t), 'latin1') };
  }
  const id = /^\((\d{10,20}),/.exec(sentence)?.[1];
  return { deviceId: ctx.deviceId ? undefined : id, records: [resultRecord(sentence, ctx.now)] };
}

function timeSyncReply(h: Header, now: number): Buffer {
  const d = new Date(now);
  const body = Buffer.alloc(8);
  body.writeUInt16BE(d.getUTCFullYear(), 0);
  [d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), 0].forEach((v, i) => (body[2 + i] = v));
  return formatMessage(MSG.timeSyncResponse, body, h);
}

function registerReply(h: Header): Buffer {
  const body = Buffer.concat([Buffer.alloc(3), Buffer.from(h.uniqueId, 'latin1')]); // serial, result 0, auth code
  body.writeUInt16BE(h.index, 0);
  return formatMessage(MSG.registerResponse, body, h);
}

/** What one binary message yields: records and the reply. */
function decodeMessage(h: Header, ctx: DecodeContext): { records?: DeviceRecord[]; reply?: Buffer } {
  const lc: LocationContext = { model: ctx.config.modelOverride as string | undefined, offset: zoneOffset(ctx.config) };
  const { r } = h;
  const one = (rec: DeviceRecord | undefined, reply?: Buffer) => ({ records: rec ? [rec] : [], reply });
  switch (h.type) {
    case MSG.register:
      return { reply: registerReply(h) };
    case MSG.location:
      return one(decodeLocation(r, lc), generalResponse(h));
    case MSG.locationQueryResponse:
      r.skip(2); // serial of the query
      return one(decodeLocation(r, lc));
    case MSG.location2:
    case MSG.location2Blind: {
      const reply = h.attribute & 0x8000 ? formatMessage(MSG.generalResponse2, Buffer.from([h.type >> 8, h.type & 0xff, 0]), { ...h, shortIndex: true }) : undefined;
      return one(decodeLocation2(h, ctx), reply);
    }
    case MSG.locationBatch:
    case MSG.locationBatch2:
      if (h.type === MSG.locationBatch2 && h.bodyLength === 7) {
        const rec = newRecord();
        set(rec, Attr.batteryLevel, r.u8());
        rec.time = readDate(r, lc.offset);
        return one(rec, generalResponse(h));
      }
      return { records: decodeBatch(h, lc), reply: generalResponse(h) };
    case MSG.heartbeat: {
      if (r.remaining < 3) return { reply: generalResponse(h) };
      const rec = newRecord(ctx.now);
      set(rec, Attr.batteryLevel, r.u8());
      set(rec, Attr.rssi, r.u8());
      set(rec, Attr.status, r.u8());
      return one(rec, generalResponse(h));
    }
    case MSG.terminalAttributes: {
      const rec = newRecord(ctx.now);
      set(rec, Attr.iccid, r.skip(2 + 5 + 20 + 7).hex(10)); // type, maker, model, terminal id
      return one(rec, generalResponse(h));
    }
    case MSG.reportText:
      return one(resultRecord(gbk.decode(r.skip(1).bytes(r.remaining)), ctx.now), generalResponse(h));
    case MSG.textResponse:
      return one(resultRecord(trimJava(utf16be.decode(r.skip(2).bytes(Math.min(r.remaining, Math.max(0, h.bodyLength - 2))))), ctx.now));
    case MSG.commandResponse:
      return one(resultRecord(r.ascii(r.u32()), ctx.now), generalResponse(h));
    case MSG.driverIdentity:
      return one(decodeDriverIdentity(r, lc), generalResponse(h));
    case MSG.parameterQueryResponse:
      return one(decodeParameters(r, ctx.now));
    case MSG.timeSyncRequest:
      return { reply: timeSyncReply(h, ctx.now) };
    case MSG.acceleration:
      return one(decodeAcceleration(r, ctx.now));
    case MSG.transparent:
      return one(decodeTransparent(r, lc, ctx.now), generalResponse(h));
    default:
      return ACK_ONLY.has(h.type) ? { reply: generalResponse(h) } : {};
  }
}

function decode(input: Buffer, ctx: DecodeContext): DecodeResult {
  if (input[0] === 0x28) return decodeText(input, ctx);
  // a UDP datagram arrives still escaped; TCP frames come un-escaped from the framer
  const frame = ctx.transport === 'udp' && input.length > 1 ? unescape(input, 0, input.length - 1) : input;
  const h = readHeader(frame);
  const { records, reply } = decodeMessage(h, ctx);
  // 0x0001: the terminal's general response to a platform message (a command or text sent to it)
  return { deviceId: h.uniqueId, records, reply, commandAck: h.type === MSG.terminalResponse || undefined };
}

// ---------------------------------------------------------------------------------------------
// Commands

/** Terminal id bytes for a device id: BCD phone number (6 bytes, 10 for 2019 ids) or a packed IMEI. */
function encodeId(deviceId: string): { id: Buffer; version?: number } {
  if (!/^\d{1,20}$/.test(deviceId)) throw new Error(`jt808: cannot encode device id ${deviceId}`);
  if (deviceId.length === 15) {
    const imei = Number(deviceId.slice(0, 14));
    const id = Buffer.alloc(6);
    id.writeUInt16BE(Math.floor(imei / 2 ** 32), 0);
    id.writeUInt32BE(imei % 2 ** 32, 2);
    return { id };
  }
  if (deviceId.length <= 12) return { id: Buffer.from(deviceId.padStart(12, '0'), 'hex') };
  return { id: Buffer.from(deviceId.padStart(20, '0'), 'hex'), version: 1 };
}

/** GBK bytes for display text (ASCII passes through; other characters via a table built on first use). */
let gbkTable: Map<string, number> | undefined; // pure cache of a constant mapping, not connection state
function encodeGbk(text: string): Buffer {
  if (/^[\x00-\x7f]*$/.test(text)) return Buffer.from(text, 'latin1');
  if (!gbkTable) {
    const table = new Map<string, number>();
    const pair = Buffer.alloc(2);
    for (let hi = 0x81; hi <= 0xfe; hi++) {
      for (let lo = 0x40; lo <= 0xfe; lo++) {
        pair[0] = hi;
        pair[1] = lo;
        const ch = lo === 0x7f ? '' : gbk.decode(pair);
        if (ch.length === 1 && ch !== '\ufffd' && !table.has(ch)) table.set(ch, (hi << 8) | lo);
      }
    }
    gbkTable = table;
  }
  const out: number[] = [];
  for (const ch of text) {
    const code = ch.charCodeAt(0) < 0x80 ? ch.charCodeAt(0) : gbkTable.get(ch) ?? 0x3f; // '?' when unmappable
    if (code > 0xff) out.push(code >> 8, code & 0xff);
    else out.push(code);
  }
  return Buffer.from(out);
}

const TEXT_DISPLAY_TTS = 0x0c; // 0x8300 flags: show on the terminal and read aloud

/** Bytes each model expects in 0x8105 for engineStop / engineResume. */
function engineControl(model: string | undefined, stop: boolean): Buffer {
  if (model === 'VL300') return Buffer.from(stop ? '#0;1' : '#0;0', 'latin1');
  if (model === 'W15L') return Buffer.from([stop ? 0x64 : 0x65]);
  return Buffer.from([stop ? 0xf0 : 0xf1]); // vendor command words: cut / restore oil and power
}

function customCommand(data: string, model: string | undefined, env: Envelope): Buffer {
  if (model && ['AL300', 'GL100', 'VL300'].includes(model)) {
    // one parameter 0xF030: AT command passed through
    const text = Buffer.from(data, 'latin1');
    const head = Buffer.from([1, 0, 0, 0xf0, 0x30, text.length & 0xff]);
    return formatMessage(MSG.setParameters, Buffer.concat([head, text]), env);
  }
  if (model === 'BSJ') return formatMessage(MSG.sendText, Buffer.concat([Buffer.from([0x01]), encodeGbk(data)]), env);
  if (JC_MODELS.has(model ?? '')) return formatMessage(MSG.transparentDown, Buffer.concat([Buffer.from([0xf0]), Buffer.from(data, 'latin1')]), env);
  if (!/^([0-9a-fA-F]{2})+$/.test(data)) throw new Error('jt808: custom data must be a hex frame for this model');
  return Buffer.from(data, 'hex'); // a complete frame prepared by the user
}

function encode(command: Command, ctx: EncodeContext): Buffer {
  const env: Envelope = encodeId(ctx.deviceId);
  const model = ctx.config.modelOverride as string | undefined;
  const a = command.attributes;
  switch (command.type) {
    case 'custom':
      return customCommand(String(a.data ?? ''), model, env);
    case 'message':
      return formatMessage(MSG.sendText, Buffer.concat([Buffer.from([TEXT_DISPLAY_TTS]), encodeGbk(String(a.message ?? ''))]), env);
    case 'engineStop':
    case 'engineResume': {
      const stop = command.type === 'engineStop';
      if (ctx.config.alternative) {
        const t = new Date(ctx.now + 8 * 3600e3).toISOString().replace(/[-T:]/g, '').slice(2, 14); // yyMMddHHmmss, device time
        return formatMessage(MSG.oilControl, Buffer.concat([Buffer.from([stop ? 1 : 0]), Buffer.from(t, 'hex')]), env);
      }
      return formatMessage(MSG.terminalControl, engineControl(model, stop), env);
    }
    case 'rebootDevice':
      return formatMessage(MSG.terminalControl, Buffer.from([0x04]), env); // command word 4: terminal reset
    case 'positionSingle':
      return formatMessage(MSG.locationQuery, Buffer.alloc(0), env);
    case 'positionPeriodic': {
      const body = Buffer.from([1, 0, 0, 0, 0x29, 4, 0, 0, 0, 0]); // one parameter: default report interval, s
      body.writeUInt32BE(Math.max(0, Math.min(0xffffffff, Math.round(Number(a.frequency ?? 60)))), 6);
      return formatMessage(MSG.setParameters, body, env);
    }
    default:
      throw new Error(`jt808: unsupported command ${command.type}`);
  }
}

export const protocol: Protocol = {
  name: 'jt808',
  defaultPort: 5015,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: ['custom', 'message', 'engineStop', 'engineResume', 'rebootDevice', 'positionSingle', 'positionPeriodic'],
  carriesText: true,
  commandAcks: true,
  encode,
};
