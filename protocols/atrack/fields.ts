/**
 * ATrack custom report fields (`%XX` codes of the device's report form): how each is read in the
 * binary format and which attribute it becomes. In the text format every value is a decimal or text
 * field; the same conversions apply.
 */
import { Attr, indexed } from '../attributes.ts';
import type { Reader } from '../binary.ts';
import type { AttrValue, DeviceRecord } from '../types.ts';

type Read = 'u8' | 'u16' | 'i16' | 'u32' | 'u64' | 'string' | 'gsensor' | 'gvector';

interface Field {
  read: Read;
  /** Attribute name, or a function placing the value (satellites, altitude, cells). */
  to?: string | ((rec: DeviceRecord, v: number | string) => void);
  scale?: number;
}

const sats = (rec: DeviceRecord, v: number | string) => {
  rec.satellites = Number(v);
};
const altitude = (rec: DeviceRecord, v: number | string) => {
  rec.altitude = Number(v);
};

export const FIELDS: Record<string, Field> = {
  SA: { read: 'u8', to: sats },
  MV: { read: 'u16', to: Attr.power, scale: 0.1 },
  BV: { read: 'u16', to: Attr.battery, scale: 0.1 },
  GQ: { read: 'u8', to: Attr.rssi },
  GS: { read: 'u8', to: 'gsmStatus' },
  CE: { read: 'u32', to: 'cellId' },
  LC: { read: 'u16', to: 'lac' },
  CN: { read: 'u32', to: 'mccMnc' },
  RL: { read: 'u8', to: 'rxLevel' },
  PC: { read: 'u32', to: indexed.count(1) },
  AT: { read: 'u32', to: altitude },
  RP: { read: 'u16', to: Attr.rpm },
  DT: { read: 'u8', to: Attr.archive },
  VN: { read: 'string', to: Attr.vin },
  MF: { read: 'u16', to: 'maf', scale: 0.1 }, // g/s
  EL: { read: 'u8', to: Attr.engineLoad },
  TR: { read: 'u8', to: Attr.throttle },
  ET: { read: 'i16', to: Attr.coolantTemp },
  FL: { read: 'u8', to: Attr.fuelLevel },
  ML: { read: 'u8', to: 'milStatus' },
  FC: { read: 'u32', to: Attr.fuelUsed, scale: 0.1 },
  CI: { read: 'string' },
  SM: { read: 'u16', to: 'maxSpeed' },
  PD: { read: 'u8', to: 'pendingDtcs' },
  CD: { read: 'string', to: Attr.iccid },
  CM: { read: 'u64', to: 'imsi' },
  GL: { read: 'string' },
  GN: { read: 'gsensor' },
  GV: { read: 'gvector' },
  ME: { read: 'u64' },
  IA: { read: 'u8', to: 'intakeTemp' },
  MP: { read: 'u8', to: 'manifoldPressure' },
  EO: { read: 'u32', to: 'obdOdometer' },
  EH: { read: 'u32', to: Attr.hours, scale: 360000 }, // 0.1 h
  MT: { read: 'u8', to: Attr.motion },
  HA: { read: 'u8', to: 'harshAcceleration' },
  HB: { read: 'u8', to: 'harshBraking' },
  HC: { read: 'u8', to: 'harshCornering' },
  AV1: { read: 'u16', to: indexed.adc(1), scale: 0.001 },
  OD: { read: 'u32', to: 'tripOdometer' },
};

/** `ZO1`..: zone states (1 byte), `ZL1`..: zone times (4 bytes), `IN0`..: input states (1 byte). */
function fieldOf(code: string): Field | undefined {
  if (FIELDS[code]) return FIELDS[code];
  if (/^ZO\d+$/.test(code) || /^IN\d+$/.test(code)) return { read: 'u8', to: code };
  if (/^ZL\d+$/.test(code)) return { read: 'u32', to: code };
  return undefined;
}

export const formCodes = (form: string): string[] => form.split('%').filter(Boolean);

function place(rec: DeviceRecord, code: string, f: Field, v: number | string): void {
  if (typeof f.to === 'function') return f.to(rec, v);
  if (!f.to) return;
  const value: AttrValue = typeof v === 'number' && f.scale ? Math.round(v * f.scale * 1e6) / 1e6 : v;
  if (f.to === Attr.archive || f.to === Attr.motion) rec.attributes[f.to] = Number(v) !== 0;
  else rec.attributes[f.to] = value;
}

/** Cells from the CN (mcc and mnc digits), LC and CE fields, once all are known. */
function cellFrom(rec: DeviceRecord): void {
  const a = rec.attributes;
  const mccMnc = String(a.mccMnc ?? '');
  if (/^\d{5,6}$/.test(mccMnc) && Number(a.cellId) > 0) {
    rec.cells = [{ mcc: Number(mccMnc.slice(0, 3)), mnc: Number(mccMnc.slice(3)), lac: Number(a.lac ?? 0), cid: Number(a.cellId) }];
  }
  delete a.mccMnc;
  delete a.cellId;
  delete a.lac;
}

/**
 * Binary values of `codes` in order. Returns false at a code whose size is unknown: the rest of
 * the frame cannot be read then.
 */
export function readBinaryFields(r: Reader, codes: string[], rec: DeviceRecord): boolean {
  for (const code of codes) {
    const f = fieldOf(code);
    if (!f) return false;
    let v: number | string;
    switch (f.read) {
      case 'u8': v = r.u8(); break;
      case 'u16': v = r.u16(); break;
      case 'i16': v = r.i16(); break;
      case 'u32': v = r.u32(); break;
      case 'u64': v = String(r.buf.readBigUInt64BE(r.skip(8).pos - 8)); break;
      case 'string': v = readString(r); break;
      case 'gsensor': r.skip(60); continue; // 10 samples of x, y, z (mg)
      case 'gvector': r.skip(6); continue;
    }
    if (code !== 'CI') place(rec, code, f, v);
  }
  cellFrom(rec);
  return true;
}

/** Text values of `codes` in order (fields already split at commas). */
export function readTextFields(values: string[], codes: string[], rec: DeviceRecord): void {
  codes.forEach((code, i) => {
    const raw = values[i]?.replace(/\x1a/g, '').trim();
    if (raw === undefined || raw === '') return;
    if (code === 'BC') return beacon(raw, rec);
    const f = fieldOf(code);
    if (!f || code === 'CI') return;
    if (f.read === 'string') return place(rec, code, f, raw);
    const n = Number(raw);
    if (Number.isFinite(n) && !['gsensor', 'gvector', 'u64'].includes(f.read)) place(rec, code, f, n);
    else if (f.read === 'u64' && f.to) rec.attributes[f.to as string] = raw;
  });
  cellFrom(rec);
}

/** NUL-terminated text, at most what the frame holds. */
export function readString(r: Reader): string {
  const end = r.buf.indexOf(0, r.pos);
  const stop = end < 0 || end >= r.end ? r.end : end;
  const s = r.buf.toString('latin1', r.pos, stop);
  r.pos = Math.min(r.end, stop + 1);
  return s;
}

/**
 * BLE tag report `<length><MAC 12 hex>FE<temperature 1/100 °C><humidity 1/100 %>...` (hex text);
 * other beacon formats are kept as they come.
 */
function beacon(raw: string, rec: DeviceRecord): void {
  const m = /^[0-9A-F]{2}([0-9A-F]{12})FE([0-9A-F]{4})([0-9A-F]{4})/i.exec(raw);
  if (!m) {
    rec.attributes.beacon = raw;
    return;
  }
  const temp = Buffer.from(m[2], 'hex').readInt16BE();
  rec.attributes.tag1Id = m[1];
  rec.attributes.tag1Temp = temp / 100;
  rec.attributes.tag1Humidity = parseInt(m[3], 16) / 100;
}
