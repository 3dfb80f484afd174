/**
 * EGTS as a sender writes it (GOST 54619 / 33472; docs/retranslators.md): the transport packet
 * (11-byte header with its CRC-8, the service frame with its CRC-16), service records with the object
 * id and time, and the TELEDATA subrecords a fix maps to. Also the reading of what the receiver sends
 * back (PT_RESPONSE with record responses, RESULT_CODE). Numbers are little-endian; times count
 * seconds from 2010-01-01 UTC. The checksums are the listener's (protocols/egts.ts).
 */
import { crc16CcittFalse } from '../../../protocols/binary.ts';
import { crc8 } from '../../../protocols/egts.ts';
import type { ForwardFix } from '../types.ts';

export const PT = { response: 0, appData: 1 } as const;
export const SERVICE = { auth: 1, teledata: 2 } as const;
export const SR = {
  recordResponse: 0,
  dispatcherIdentity: 5,
  resultCode: 9,
  posData: 16,
  extPosData: 17,
  adSensors: 18,
  counters: 19,
  absAnSens: 24,
  absCntr: 25,
  liquidLevel: 27,
} as const;

const EPOCH_2010 = Date.UTC(2010, 0, 1);
const U24 = 0xffffff;
/** Seconds from 2010-01-01 UTC (earlier instants as 0). */
export const egtsTime = (ms: number) => Math.max(0, Math.floor((ms - EPOCH_2010) / 1000)) >>> 0;

export function subrecord(type: number, data: Buffer): Buffer {
  const head = Buffer.alloc(3);
  head[0] = type;
  head.writeUInt16LE(data.length, 1);
  return Buffer.concat([head, data]);
}

/** A service record: RL, RN, RFL (object id and time when given), [OID, TM], source and recipient service. */
export function serviceRecord(rn: number, service: number, data: Buffer, oid?: number, tm?: number): Buffer {
  const withIds = oid !== undefined && tm !== undefined;
  const head = Buffer.alloc(withIds ? 15 : 7);
  head.writeUInt16LE(data.length, 0);
  head.writeUInt16LE(rn, 2);
  let at = 5;
  if (withIds) {
    head[4] = 0x01 | 0x04; // OBFE | TMFE
    head.writeUInt32LE(oid >>> 0, 5);
    head.writeUInt32LE(tm >>> 0, 9);
    at = 13;
  }
  head[at] = service;
  head[at + 1] = service;
  return Buffer.concat([head, data]);
}

/** The transport packet: PRV 1, no routing, no encryption or compression, header CRC-8, data CRC-16. */
export function packet(type: number, pid: number, sfrd: Buffer): Buffer {
  const out = Buffer.alloc(11 + sfrd.length + (sfrd.length ? 2 : 0));
  out[0] = 0x01; // PRV
  out[3] = 11; // HL
  out.writeUInt16LE(sfrd.length, 5);
  out.writeUInt16LE(pid, 7);
  out[9] = type;
  out[10] = crc8(out, 0, 10);
  if (sfrd.length) {
    sfrd.copy(out, 11);
    out.writeUInt16LE(crc16CcittFalse(sfrd), 11 + sfrd.length);
  }
  return out;
}

/**
 * EGTS_SR_DISPATCHER_IDENTITY: dispatcher type 0, the dispatcher id (the retranslator's login), no
 * description. A platform authenticates so, not as a terminal: the receiver then takes each record's
 * OID as the object it belongs to.
 */
export function dispatcherIdentity(did: number): Buffer {
  const d = Buffer.alloc(5);
  d.writeUInt32LE(did >>> 0, 1);
  return subrecord(SR.dispatcherIdentity, d);
}

/** EGTS_SR_RECORD_RESPONSE: the record number confirmed and its status. */
export function recordResponse(rn: number, status: number): Buffer {
  const d = Buffer.alloc(3);
  d.writeUInt16LE(rn, 0);
  d[2] = status;
  return subrecord(SR.recordResponse, d);
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const u24 = (v: number) => Math.min(U24, Math.max(0, Math.round(v)));
/** Numbered attributes of a family (`adc3` -> 3 -> value), numbers only, 1..255. */
function family(attrs: Record<string, unknown>, prefix: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const [k, v] of Object.entries(attrs)) {
    if (!k.startsWith(prefix)) continue;
    const n = Number(k.slice(prefix.length));
    const x = typeof v === 'boolean' ? Number(v) : num(v);
    if (Number.isInteger(n) && n >= 1 && n <= 255 && x !== undefined && String(n) === k.slice(prefix.length)) out.set(n, x);
  }
  return out;
}

/** Digital inputs 1-8: the `input` mask, else `in1`..`in8`. */
function inputs1to8(f: ForwardFix, ins: Map<number, number>): number {
  const mask = num(f.attrs.input);
  if (mask !== undefined) return mask & 0xff;
  let m = 0;
  for (let i = 1; i <= 8; i++) if (ins.get(i)) m |= 1 << (i - 1);
  return m;
}

function posData(f: ForwardFix, din: number): Buffer {
  const d = Buffer.alloc(f.alt !== null ? 24 : 21);
  const lat = f.lat!;
  const lng = f.lng!;
  d.writeUInt32LE(egtsTime(f.time), 0);
  d.writeUInt32LE(Math.min(0xffffffff, Math.round((Math.abs(lat) / 90) * 0xffffffff)), 4);
  d.writeUInt32LE(Math.min(0xffffffff, Math.round((Math.abs(lng) / 180) * 0xffffffff)), 8);
  const speed = f.speed ?? 0;
  const moving = f.attrs.motion === true || (f.attrs.motion === undefined && speed > 0);
  let flags = (f.valid ? 0x01 : 0) | (f.archive ? 0x08 : 0) | (moving ? 0x10 : 0) | (lat < 0 ? 0x20 : 0) | (lng < 0 ? 0x40 : 0);
  if (f.alt !== null) flags |= 0x80 | 0x04; // ALTE, and a 3D fix
  d[12] = flags;
  const course = Math.round(f.course ?? 0) % 360;
  // SPD: 14 bits of 0.1 km/h, ALTS (altitude below sea level), DIRH (the direction's 9th bit)
  const spd = Math.min(0x3fff, Math.round(Math.max(0, speed) * 10)) | (f.alt !== null && f.alt < 0 ? 0x4000 : 0) | (course & 0x100 ? 0x8000 : 0);
  d.writeUInt16LE(spd, 13);
  d[15] = course & 0xff;
  d.writeUIntLE(u24((f.odometer ?? 0) / 100), 16, 3); // 0.1 km
  d[19] = din;
  const src = num(f.attrs.event);
  d[20] = src !== undefined && Number.isInteger(src) && src >= 0 && src <= 255 ? src : 0;
  if (f.alt !== null) d.writeUIntLE(u24(Math.abs(f.alt)), 21, 3);
  return subrecord(SR.posData, d);
}

function extPosData(f: ForwardFix): Buffer | undefined {
  const vdop = num(f.attrs.vdop);
  const pdop = num(f.attrs.pdop);
  const parts: Buffer[] = [];
  let flags = 0;
  const u16 = (v: number) => {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(Math.min(0xffff, Math.max(0, Math.round(v * 100))), 0);
    return b;
  };
  if (vdop !== undefined) (flags |= 0x01), parts.push(u16(vdop));
  if (f.hdop !== null) (flags |= 0x02), parts.push(u16(f.hdop));
  if (pdop !== undefined) (flags |= 0x04), parts.push(u16(pdop));
  if (f.satellites !== null) (flags |= 0x08), parts.push(Buffer.from([Math.min(255, Math.max(0, Math.round(f.satellites)))]));
  return flags ? subrecord(SR.extPosData, Buffer.concat([Buffer.from([flags]), ...parts])) : undefined;
}

/** Outputs, inputs 9-72 (a byte per group of 8) and analog inputs 1-8. */
function adSensors(f: ForwardFix, ins: Map<number, number>, adc: Map<number, number>): Buffer | undefined {
  const out = num(f.attrs.output);
  const groups: number[] = [];
  let dioe = 0;
  for (let g = 0; g < 8; g++) {
    let v = 0;
    let any = false;
    for (let b = 0; b < 8; b++) {
      const x = ins.get(9 + g * 8 + b);
      if (x === undefined) continue;
      any = true;
      if (x) v |= 1 << b;
    }
    if (any) (dioe |= 1 << g), groups.push(v);
  }
  let asfe = 0;
  const values: number[] = [];
  for (let i = 1; i <= 8; i++) if (adc.has(i)) (asfe |= 1 << (i - 1)), values.push(u24(adc.get(i)!));
  if (out === undefined && !dioe && !asfe) return undefined;
  const d = Buffer.alloc(3 + groups.length + values.length * 3);
  d[0] = dioe;
  d[1] = (out ?? 0) & 0xff;
  d[2] = asfe;
  groups.forEach((v, i) => (d[3 + i] = v));
  values.forEach((v, i) => d.writeUIntLE(v, 3 + groups.length + i * 3, 3));
  return subrecord(SR.adSensors, d);
}

function counters(cnt: Map<number, number>): Buffer | undefined {
  let cfe = 0;
  const values: number[] = [];
  for (let i = 1; i <= 8; i++) if (cnt.has(i)) (cfe |= 1 << (i - 1)), values.push(u24(cnt.get(i)!));
  if (!cfe) return undefined;
  const d = Buffer.alloc(1 + values.length * 3);
  d[0] = cfe;
  values.forEach((v, i) => d.writeUIntLE(v, 1 + i * 3, 3));
  return subrecord(SR.counters, d);
}

/** A numbered value beyond the first eight: ABS_AN_SENS / ABS_CNTR (number, 3-byte value). */
function absolute(type: number, n: number, v: number): Buffer {
  const d = Buffer.alloc(4);
  d[0] = n;
  d.writeUIntLE(u24(v), 1, 3);
  return subrecord(type, d);
}

/** EGTS_SR_LIQUID_LEVEL_SENSOR n (1-8), in 0.1 litre. */
function liquidLevel(n: number, litres: number): Buffer {
  const d = Buffer.alloc(7);
  d[0] = (n - 1) | (2 << 4); // LLSN, LLSVU = 2 (0.1 l)
  d.writeUInt32LE(Math.min(0xffffffff, Math.max(0, Math.round(litres * 10))), 3);
  return subrecord(SR.liquidLevel, d);
}

/** The TELEDATA subrecords of one fix: POS_DATA when it has a position, then the sensors that map. */
export function fixSubrecords(f: ForwardFix): Buffer {
  const ins = family(f.attrs, 'in');
  const adc = family(f.attrs, 'adc');
  const cnt = family(f.attrs, 'count');
  const parts: Array<Buffer | undefined> = [];
  if (f.lat !== null && f.lng !== null) parts.push(posData(f, inputs1to8(f, ins)), extPosData(f));
  parts.push(adSensors(f, ins, adc), counters(cnt));
  for (const [n, v] of adc) if (n > 8) parts.push(absolute(SR.absAnSens, n, v));
  for (const [n, v] of cnt) if (n > 8) parts.push(absolute(SR.absCntr, n, v));
  for (const [n, v] of family(f.attrs, 'fuel')) if (n <= 8) parts.push(liquidLevel(n, v));
  return Buffer.concat(parts.filter((p): p is Buffer => p !== undefined));
}

// ---- what the receiver sends

export interface ReceivedRecord {
  rn: number;
  service: number;
  subrecords: Array<{ type: number; data: Buffer }>;
}

export interface ReceivedPacket {
  pid: number;
  type: number;
  /** PT_RESPONSE: the packet confirmed and its processing result. */
  responseTo?: number;
  result?: number;
  records: ReceivedRecord[];
}

/** Cuts one whole packet off the front, or null when more bytes are needed; throws on a broken stream. */
export function nextPacket(buf: Buffer): { packet: Buffer; consumed: number } | null {
  if (!buf.length) return null;
  if (buf[0] !== 0x01) throw new Error('egts: receiver sent something that is not an EGTS packet');
  if (buf.length < 4) return null;
  const hl = buf[3];
  if (hl !== 11 && hl !== 16) throw new Error('egts: bad header length from the receiver');
  if (buf.length < hl) return null;
  if (crc8(buf, 0, hl - 1) !== buf[hl - 1]) throw new Error('egts: header checksum from the receiver');
  const fdl = buf.readUInt16LE(5);
  const total = hl + fdl + (fdl ? 2 : 0);
  if (buf.length < total) return null;
  if (fdl && buf.readUInt16LE(hl + fdl) !== crc16CcittFalse(buf, hl, hl + fdl)) throw new Error('egts: data checksum from the receiver');
  return { packet: buf.subarray(0, total), consumed: total };
}

/** Records of a service frame from `at` to `end`. */
function readRecords(p: Buffer, at: number, end: number): ReceivedRecord[] {
  const out: ReceivedRecord[] = [];
  while (at + 7 <= end) {
    const rl = p.readUInt16LE(at);
    const rn = p.readUInt16LE(at + 2);
    const rfl = p[at + 4];
    let pos = at + 5 + (rfl & 0x01 ? 4 : 0) + (rfl & 0x02 ? 4 : 0) + (rfl & 0x04 ? 4 : 0);
    const service = p[pos];
    pos += 2;
    const recEnd = pos + rl;
    if (recEnd > end) throw new Error('egts: record overruns the receiver packet');
    const subrecords: ReceivedRecord['subrecords'] = [];
    while (pos + 3 <= recEnd) {
      const type = p[pos];
      const len = p.readUInt16LE(pos + 1);
      if (pos + 3 + len > recEnd) throw new Error('egts: subrecord overruns its record');
      subrecords.push({ type, data: p.subarray(pos + 3, pos + 3 + len) });
      pos += 3 + len;
    }
    out.push({ rn, service, subrecords });
    at = recEnd;
  }
  return out;
}

export function readPacket(p: Buffer): ReceivedPacket {
  const hl = p[3];
  const fdl = p.readUInt16LE(5);
  const pid = p.readUInt16LE(7);
  const type = p[9];
  if (p[2] & 0x1c) throw new Error('egts: the receiver sent encrypted or compressed data');
  if (type === PT.response) {
    if (fdl < 3) throw new Error('egts: short PT_RESPONSE');
    return { pid, type, responseTo: p.readUInt16LE(hl), result: p[hl + 2], records: readRecords(p, hl + 3, hl + fdl) };
  }
  return { pid, type, records: type === PT.appData ? readRecords(p, hl, hl + fdl) : [] };
}
