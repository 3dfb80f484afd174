/**
 * EGTS (ERA-GLONASS telematics standard, Russian Ministry of Transport order 285 / GOST 33472).
 *
 * Transport packet (little-endian): PRV=1 | SKID | flags | HL | HE | FDL u16 | PID u16 | PT
 *   | [PRA u16, RCA u16, TTL when routed] | HCS (CRC-8) | SFRD (FDL bytes) | SFRCS (CRC-16, when FDL > 0).
 * SFRD of an APPDATA packet is a list of service records: RL u16 | RN u16 | RFL | [OID u32] [EVID u32]
 *   [TM u32] | SST | RST | subrecords (SRT u8 | SRL u16 | data).
 * Every record is confirmed with an EGTS_PT_RESPONSE carrying one EGTS_SR_RECORD_RESPONSE per record.
 * Who sends: a terminal (EGTS_SR_TERM_IDENTITY: every record is its own) or a dispatcher, a platform
 * retranslating many objects on one connection (EGTS_SR_DISPATCHER_IDENTITY: each record belongs to
 * the object its OID names, returned as the record's deviceId for the gateway to route).
 * Times count seconds from 2010-01-01 UTC.
 */
import { Attr, indexed } from './attributes.ts';
import { Reader, crc16CcittFalse } from './binary.ts';
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

const PT = { response: 0, appData: 1, signedAppData: 2 } as const;
const SERVICE = { auth: 1, teledata: 2, commands: 4 } as const;
const SR = {
  recordResponse: 0,
  termIdentity: 1,
  vehicleData: 3,
  dispatcherIdentity: 5,
  resultCode: 9,
  posData: 16,
  extPosData: 17,
  adSensors: 18,
  counters: 19,
  stateData: 21,
  loopIn: 22,
  absDigSens: 23,
  absAnSens: 24,
  absCounter: 25,
  absLoopIn: 26,
  liquidLevel: 27,
  commandData: 51,
} as const;

const EPOCH_2010 = Date.UTC(2010, 0, 1);
const MAX_FRAME = 16 + 0xffff + 2;

// ---------------------------------------------------------------------------------------------
// Checksums

const CRC8_TABLE = (() => {
  const t = new Uint8Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let b = 0; b < 8; b++) c = c & 0x80 ? ((c << 1) ^ 0x31) & 0xff : (c << 1) & 0xff;
    t[i] = c;
  }
  return t;
})();

/** Header check: CRC-8, polynomial 0x31, initial 0xFF. */
export function crc8(buf: Buffer, start: number, end: number): number {
  let crc = 0xff;
  for (let i = start; i < end; i++) crc = CRC8_TABLE[crc ^ buf[i]];
  return crc;
}

// ---------------------------------------------------------------------------------------------
// Framer: the header says how long the packet is

function createFramer(): Framer {
  return {
    next(buf) {
      if (buf.length === 0) return null;
      if (buf[0] !== 0x01) throw new FrameError('egts: unsupported protocol version');
      if (buf.length < 4) return null;
      const hl = buf[3];
      if (hl !== 11 && hl !== 16) throw new FrameError('egts: bad header length');
      if (buf.length < hl) return null;
      if (crc8(buf, 0, hl - 1) !== buf[hl - 1]) throw new FrameError('egts: header checksum');
      const fdl = buf.readUInt16LE(5);
      const total = hl + fdl + (fdl > 0 ? 2 : 0);
      if (buf.length < total) return null;
      return { frame: buf.subarray(0, total), consumed: total };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Outgoing packets

interface Session {
  /** Next packet id and record number we send. */
  pid?: number;
  rn?: number;
  /**
   * Who authenticated. A terminal's records are its own whatever OID they carry (terminals put
   * arbitrary numbers there); a dispatcher's, or anyone's before an identity, belong to their OID.
   */
  auth?: Auth;
}

type Auth = 'terminal' | 'dispatcher';

function subrecord(type: number, data: Buffer): Buffer {
  const head = Buffer.alloc(3);
  head[0] = type;
  head.writeUInt16LE(data.length, 1);
  return Buffer.concat([head, data]);
}

function serviceRecord(rn: number, service: number, data: Buffer): Buffer {
  const head = Buffer.alloc(7);
  head.writeUInt16LE(data.length, 0);
  head.writeUInt16LE(rn, 2);
  head[4] = 0; // no object id, event id or time
  head[5] = service;
  head[6] = service;
  return Buffer.concat([head, data]);
}

function packet(type: number, pid: number, sfrd: Buffer): Buffer {
  const head = Buffer.from([0x01, 0x00, 0x00, 11, 0x00, 0, 0, 0, 0, type, 0]);
  head.writeUInt16LE(sfrd.length, 5);
  head.writeUInt16LE(pid, 7);
  head[10] = crc8(head, 0, 10);
  if (!sfrd.length) return head;
  const crc = Buffer.alloc(2);
  crc.writeUInt16LE(crc16CcittFalse(sfrd), 0);
  return Buffer.concat([head, sfrd, crc]);
}

function nextId(session: Session, key: 'pid' | 'rn'): number {
  const id = session[key] ?? 0;
  session[key] = (id + 1) & 0xffff;
  return id;
}

interface ReceivedRecord {
  rn: number;
  service: number;
}

/** EGTS_PT_RESPONSE: the packet id we confirm, result 0, then a record response per record. */
function responsePacket(session: Session, pid: number, records: ReceivedRecord[]): Buffer {
  const head = Buffer.alloc(3);
  head.writeUInt16LE(pid, 0);
  const body = records.map((r) => {
    const rr = Buffer.alloc(3);
    rr.writeUInt16LE(r.rn, 0); // confirmed record number, status 0 = EGTS_PC_OK
    return serviceRecord(nextId(session, 'rn'), r.service, subrecord(SR.recordResponse, rr));
  });
  return packet(PT.response, nextId(session, 'pid'), Buffer.concat([head, ...body]));
}

/** After a terminal identified itself: EGTS_SR_RESULT_CODE 0 (authorised). */
function resultCodePacket(session: Session): Buffer {
  const rec = serviceRecord(nextId(session, 'rn'), SERVICE.auth, subrecord(SR.resultCode, Buffer.from([0])));
  return packet(PT.appData, nextId(session, 'pid'), rec);
}

// ---------------------------------------------------------------------------------------------
// Text

const cp1251 = new TextDecoder('windows-1251');
/** CP-1251 bytes of the characters above 0x7F (a constant table). */
const CP1251_CODES = new Map(Array.from({ length: 128 }, (_, i) => [cp1251.decode(Buffer.from([0x80 + i])), 0x80 + i] as const));

function encodeCp1251(text: string): Buffer {
  return Buffer.from([...text].map((ch) => (ch.charCodeAt(0) < 0x80 ? ch.charCodeAt(0) : CP1251_CODES.get(ch) ?? 0x3f)));
}

/** Text in the charset a command subrecord names (CHS); CP-1251 when absent. */
function decodeText(data: Buffer, charset: number): string {
  switch (charset) {
    case 1:
    case 3:
      return data.toString('latin1');
    case 2:
    case 4:
      return data.toString('hex');
    case 6:
      return new TextDecoder('iso-8859-5').decode(data);
    case 8:
      return new TextDecoder('utf-16le').decode(data);
    default:
      return cp1251.decode(data);
  }
}

// ---------------------------------------------------------------------------------------------
// Subrecords

interface Sub {
  r: Reader;
  len: number;
  /** Record being filled; POS_DATA starts a new one when the current already has a fix. */
  rec: DeviceRecord;
}

function set(rec: DeviceRecord, key: string, value: AttrValue): void {
  rec.attributes[key] = value;
}

function decodePosData({ r, rec }: Sub): void {
  rec.time = EPOCH_2010 + r.u32le() * 1000;
  const lat = (r.u32le() * 90) / 0xffffffff;
  const lng = (r.u32le() * 180) / 0xffffffff;
  const flags = r.u8();
  rec.valid = (flags & 0x01) !== 0;
  rec.lat = flags & 0x20 ? -lat : lat; // LAHS: southern
  rec.lng = flags & 0x40 ? -lng : lng; // LOHS: western
  if (flags & 0x08) set(rec, Attr.archive, true); // BB: sent from the black box
  set(rec, Attr.motion, (flags & 0x10) !== 0);
  const spd = r.u16le();
  rec.speed = (spd & 0x3fff) / 10; // 0.1 km/h
  rec.course = r.u8() + (spd & 0x8000 ? 0x100 : 0); // DIRH: 9th bit of the direction
  set(rec, Attr.odometer, r.u24le() * 100); // 0.1 km
  set(rec, Attr.input, r.u8());
  set(rec, Attr.event, r.u8()); // SRC: what triggered the report
  if (flags & 0x80 && r.remaining >= 3) {
    const alt = r.u24le();
    rec.altitude = spd & 0x4000 ? -alt : alt; // ALTS: below sea level
  }
}

function decodeExtPosData({ r, rec }: Sub): void {
  const flags = r.u8();
  if (flags & 0x01) set(rec, 'vdop', r.u16le() / 100);
  if (flags & 0x02) rec.hdop = r.u16le() / 100;
  if (flags & 0x04) set(rec, 'pdop', r.u16le() / 100);
  if (flags & 0x08) rec.satellites = r.u8();
  if (flags & 0x10) set(rec, 'navSystem', r.u16le());
}

function decodeAdSensors({ r, rec }: Sub): void {
  const inputBytes = r.u8(); // which additional digital input bytes follow
  set(rec, Attr.output, r.u8());
  const adcMask = r.u8();
  for (let i = 0; i < 8; i++) {
    if (!(inputBytes & (1 << i))) continue;
    const v = r.u8();
    for (let b = 0; b < 8; b++) set(rec, indexed.in(9 + i * 8 + b), (v & (1 << b)) !== 0); // inputs 9.. (1-8 are in POS_DATA)
  }
  for (let i = 0; i < 8; i++) if (adcMask & (1 << i)) set(rec, indexed.adc(i + 1), r.u24le());
}

function decodeCounters({ r, rec }: Sub): void {
  const mask = r.u8();
  for (let i = 0; i < 8; i++) if (mask & (1 << i)) set(rec, indexed.count(i + 1), r.u24le());
}

function decodeState({ r, rec }: Sub): void {
  set(rec, Attr.status, r.u8());
  set(rec, Attr.power, r.u8() / 10); // main supply, 0.1 V
  set(rec, 'backupBattery', r.u8() / 10);
  set(rec, Attr.battery, r.u8() / 10); // internal battery
  const flags = r.u8();
  set(rec, 'backupBatteryUsed', (flags & 0x01) !== 0);
  set(rec, 'batteryUsed', (flags & 0x02) !== 0);
  set(rec, 'navigationOn', (flags & 0x04) !== 0);
}

function decodeLoopIn({ r, rec }: Sub): void {
  const mask = r.u8();
  let packed = 0;
  for (let i = 0, n = 0; i < 8; i++) {
    if (!(mask & (1 << i))) continue;
    if (n % 2 === 0) packed = r.u8(); // two 4-bit states per byte
    set(rec, `loop${i + 1}`, n % 2 === 0 ? packed & 0x0f : packed >> 4);
    n++;
  }
}

/** EGTS_SR_LIQUID_LEVEL_SENSOR: a fuel (or other liquid) level in 0.1 % or 0.1 l, or raw. */
function decodeLiquidLevel({ r, rec, len }: Sub): void {
  const flags = r.u8();
  const n = (flags & 0x07) + 1;
  r.skip(2); // module address
  if (flags & 0x40) return set(rec, `fuel${n}Error`, true);
  if (flags & 0x08) return set(rec, `liquidRaw${n}`, r.hex(len - 3));
  const value = r.u32le();
  const unit = (flags >> 4) & 0x03;
  set(rec, indexed.fuel(n), unit === 0 ? value : value / 10);
}

function decodeCommandData({ r, rec }: Sub): void {
  const type = r.u8();
  const ct = type >> 4;
  const cct = type & 0x0f;
  set(rec, 'commandId', r.u32le());
  r.skip(4); // sender id
  const flags = r.u8();
  const charset = flags & 0x01 ? r.u8() : 0;
  if (flags & 0x02) r.skip(r.u8()); // authorisation code
  if (ct === 3) {
    set(rec, Attr.result, decodeText(r.bytes(r.remaining), charset)); // CT_MSGFROM: text from the driver
  } else if (ct === 1 || ct === 2 || ct === 8) {
    // confirmation of a command / message / delivery: status, then (commands) address, code and data
    const status = ['ok', 'error', 'illegal', 'deleted', 'notFound', 'negative', 'inProgress'][cct] ?? String(cct);
    const data = ct === 1 && r.remaining > 4 ? decodeText(r.skip(4).bytes(r.remaining), charset) : '';
    set(rec, Attr.result, data ? `${status}: ${data}` : status);
  }
}

const SUBRECORDS: Record<number, (s: Sub) => void> = {
  [SR.extPosData]: decodeExtPosData,
  [SR.adSensors]: decodeAdSensors,
  [SR.counters]: decodeCounters,
  [SR.stateData]: decodeState,
  [SR.loopIn]: decodeLoopIn,
  [SR.absDigSens]: ({ r, rec }) => {
    const v = r.u16le();
    set(rec, indexed.in(v >> 4), (v & 0x0f) !== 0);
  },
  [SR.absAnSens]: ({ r, rec }) => set(rec, indexed.adc(r.u8()), r.u24le()),
  [SR.absCounter]: ({ r, rec }) => set(rec, indexed.count(r.u8()), r.u24le()),
  [SR.absLoopIn]: ({ r, rec }) => {
    const v = r.u16le();
    set(rec, `loop${v & 0x0fff}`, v >> 12);
  },
  [SR.liquidLevel]: decodeLiquidLevel,
  [SR.commandData]: decodeCommandData,
  [SR.vehicleData]: ({ r, rec }) => set(rec, Attr.vin, r.ascii(17).replace(/\0/g, '').trim()),
};

/** TERM_IDENTITY: the terminal's IMEI (or IMSI, MSISDN, else its terminal id). */
function termIdentity(r: Reader): string {
  const tid = r.u32le();
  const flags = r.u8();
  const text = (n: number) => r.ascii(n).replace(/\0/g, '').trim();
  const ids: string[] = [];
  if (flags & 0x01) r.skip(2); // home dispatcher
  if (flags & 0x02) ids.push(text(15)); // IMEI
  if (flags & 0x04) ids.push(text(16)); // IMSI
  if (flags & 0x08) r.skip(3); // language
  if (flags & 0x20) r.skip(3); // network
  if (flags & 0x40) r.skip(2); // buffer size
  if (flags & 0x80) ids.push(text(15)); // MSISDN
  return ids.find((id) => id && !/^0+$/.test(id)) ?? String(tid);
}

/** DISPATCHER_IDENTITY: dispatcher type, then the dispatcher id (a description may follow). */
function dispatcherIdentity(r: Reader): string {
  r.skip(1);
  return String(r.u32le());
}

// ---------------------------------------------------------------------------------------------
// Records

interface RecordResult {
  identity?: { deviceId: string; auth: Auth };
  records: DeviceRecord[];
}

/** Subrecords of one service record: fixes (one per POS_DATA), sensor values attach to the latest. */
function decodeSubrecords(r: Reader, service: number, time: number | undefined, now: number): RecordResult {
  const out: RecordResult = { records: [] };
  let rec: DeviceRecord = { time: time ?? now, attributes: {} };
  while (r.remaining >= 3) {
    const type = r.u8();
    const len = r.u16le();
    const end = r.pos + len;
    if (end > r.end) throw new DecodeError('egts: subrecord overruns its record');
    const sub = new Reader(r.buf, r.pos, end);
    if (service === SERVICE.auth && type === SR.termIdentity) {
      out.identity = { deviceId: termIdentity(sub), auth: 'terminal' };
    } else if (service === SERVICE.auth && type === SR.dispatcherIdentity) {
      out.identity = { deviceId: dispatcherIdentity(sub), auth: 'dispatcher' };
    } else if (type === SR.posData) {
      if (rec.lat !== undefined) {
        out.records.push(rec);
        rec = { attributes: {} };
      }
      decodePosData({ r: sub, len, rec });
    } else {
      SUBRECORDS[type]?.({ r: sub, len, rec });
    }
    r.pos = end;
  }
  if (rec.lat !== undefined || Object.keys(rec.attributes).length) out.records.push(rec);
  return out;
}

function decodeRecords(r: Reader, ctx: DecodeContext, session: Session) {
  const received: ReceivedRecord[] = [];
  const records: DeviceRecord[] = [];
  let deviceId: string | undefined;
  let identified = false;
  let auth = session.auth; // kept for the session only once the whole packet decoded
  while (r.remaining > 0) {
    const length = r.u16le();
    const rn = r.u16le();
    const flags = r.u8();
    const oid = flags & 0x01 ? r.u32le() : undefined;
    if (flags & 0x02) r.skip(4); // event id
    const time = flags & 0x04 ? EPOCH_2010 + r.u32le() * 1000 : undefined;
    const service = r.u8();
    r.skip(1); // recipient service
    const end = r.pos + length;
    if (end > r.end) throw new DecodeError('egts: record overruns the packet');
    const result = decodeSubrecords(new Reader(r.buf, r.pos, end), service, time, ctx.now);
    r.pos = end;
    received.push({ rn, service });
    if (result.identity) {
      ({ deviceId, auth } = result.identity);
      identified = true;
    }
    if (auth !== 'terminal' && oid) {
      // The object the record belongs to (OID 0: none; the record is the connection's device's).
      const object = String(oid);
      for (const rec of result.records) rec.deviceId = object;
      // Nobody authenticated yet: the first object seen identifies the connection.
      if (!auth && !deviceId && !ctx.deviceId) deviceId = object;
    }
    records.push(...result.records);
  }
  return { received, records, deviceId, identified, auth };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length < 11 || frame[0] !== 0x01) throw new DecodeError('egts: not a packet');
  const hl = frame[3];
  if ((hl !== 11 && hl !== 16) || frame.length < hl || crc8(frame, 0, hl - 1) !== frame[hl - 1]) throw new DecodeError('egts: bad header');
  const fdl = frame.readUInt16LE(5);
  const pid = frame.readUInt16LE(7);
  const type = frame[9];
  if (fdl === 0) return {};
  const r = new Reader(frame, hl, hl + fdl);
  if (frame.length < hl + fdl + 2 || frame.readUInt16LE(hl + fdl) !== crc16CcittFalse(frame, hl, hl + fdl)) throw new DecodeError('egts: data checksum');
  if (frame[2] & 0x1c) throw new DecodeError('egts: encrypted or compressed data is not supported');
  if (type === PT.response) return {}; // the terminal confirming our packet
  if (type === PT.signedAppData) r.skip(r.u16le()); // signature
  else if (type !== PT.appData) throw new DecodeError(`egts: packet type ${type}`);

  const session = ctx.session as Session;
  const { received, records, deviceId, identified, auth } = decodeRecords(r, ctx, session);
  session.auth = auth;
  // Every record is confirmed, whoever it belongs to: records of an unknown or blocked object are
  // left out by the gateway and the rest stored and acknowledged (docs/gateway.md, Identification).
  const replies = [responsePacket(session, pid, received)];
  if (identified) replies.push(resultCodePacket(session));
  return { deviceId, records, reply: Buffer.concat(replies) };
}

// ---------------------------------------------------------------------------------------------
// Commands (EGTS_COMMANDS_SERVICE, EGTS_SR_COMMAND_DATA)

const CT = { msgTo: 4, com: 5 } as const;
const CCD = { rawData: 0x0000, restart: 0x0008 } as const;

function commandData(ct: number, id: number, body: Buffer, charset: number): Buffer {
  const head = Buffer.alloc(11);
  head[0] = ct << 4;
  head.writeUInt32LE(id >>> 0, 1); // command id, echoed in the confirmation
  head.writeUInt32LE(0, 5); // sender id
  head[9] = 0x01; // CHSFE: charset field follows
  head[10] = charset;
  return Buffer.concat([head, body]);
}

/** CT_COM body: address, size/action, command code, data. */
function comBody(code: number, data: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt16LE(code, 3);
  return Buffer.concat([head, data]);
}

function encode(command: Command, ctx: EncodeContext): Buffer {
  const id = Math.floor(ctx.now / 1000) >>> 0;
  let sub: Buffer;
  switch (command.type) {
    case 'message':
      sub = commandData(CT.msgTo, id, encodeCp1251(String(command.attributes.message ?? '')), 0);
      break;
    case 'custom': {
      const data = String(command.attributes.data ?? '');
      const binary = /^([0-9a-fA-F]{2})+$/.test(data);
      sub = commandData(CT.com, id, comBody(CCD.rawData, binary ? Buffer.from(data, 'hex') : encodeCp1251(data)), binary ? 2 : 0);
      break;
    }
    case 'rebootDevice':
      sub = commandData(CT.com, id, comBody(CCD.restart, Buffer.alloc(0)), 0);
      break;
    default:
      throw new Error(`egts: unsupported command ${command.type}`);
  }
  const record = serviceRecord(id & 0xffff, SERVICE.commands, subrecord(SR.commandData, sub));
  return packet(PT.appData, id & 0xffff, record);
}

export const protocol: Protocol = {
  name: 'egts',
  defaultPort: 5162,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: ['custom', 'message', 'rebootDevice'],
  carriesText: true,
  encode,
};
