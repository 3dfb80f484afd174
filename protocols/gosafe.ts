/**
 * GoSafe (G1S, G3C, G6S, G737, G79, G797, ...) protocol, text and binary.
 *
 * Text: `*GS<version>,<imei>,<record>$<record>...#`, each record `<hhmmssddmmyy>,<event hex>,<SECTION>:<v>;<v>,...`:
 *   SYS device;firmware;hardware   GPS A|V|L;sats;N<lat>;E<lon>;km/h;course;altitude;hdop;vdop
 *   GSM reg;signal;mcc;mnc;lac;cid;rssi[;mcc;mnc;lac;cid;rssi...]   COT odometer m[;h-m-s engine hours]
 *   ADC power;battery[;adc1;adc2]   DTT status;io;geofences;geofences;event status;packet type
 *   IWD (index;type;data)... 1-wire: type 0 driver id, type 1 serial;temperature   OBD length-prefixed mode 01 answers
 * A record starting with text instead of a time (`RST`) is a command result. The G2 firmware
 * sends `*GS02,<imei>,GPS:<hhmmss>;A;S<lat>;E<lon>;km/h;course;<ddmmyy>,STT:..,MGR:<odometer>,ADC:0;<power>;1;<temp>;2;<battery>`.
 * Binary: `F8 | version | type | imei (7 bytes) | time (u32 s since 2000) | data mask (u16) | blocks | CRC16 | F8`, each
 * block length-prefixed, in mask bit order SYS, GPS, GSM, COT, ADC, DTT, IWD, ETD (event packets) / OBD, OBD / FUL.
 * 0x1B 0x00 stands for 0x1B and 0x1B 0xE3 for 0xF8 inside a binary packet.
 * Every message is acknowledged with `1234`.
 */
import { Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { DecodeError, FrameError, type AttrValue, type Cell, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 8192;
const BINARY = 0xf8;
const ESCAPE = 0x1b;
const ACK = Buffer.from('1234', 'latin1');

function unescape(b: Buffer): Buffer {
  if (!b.includes(ESCAPE)) return b;
  const out = Buffer.alloc(b.length);
  let n = 0;
  for (let i = 0; i < b.length; i++) {
    if (b[i] === ESCAPE && (b[i + 1] === 0x00 || b[i + 1] === 0xe3)) {
      out[n++] = b[i + 1] === 0x00 ? ESCAPE : BINARY;
      i++;
    } else out[n++] = b[i];
  }
  return out.subarray(0, n);
}

/** Text packets run from `*` to `#`; binary ones from F8 to the next F8 (both kept), un-escaped. */
function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && buffer[start] !== 0x2a && buffer[start] !== BINARY) start++;
      if (start >= buffer.length) {
        if (buffer.length > MAX_FRAME) throw new FrameError('gosafe: no packet start');
        return null;
      }
      const binary = buffer[start] === BINARY;
      const end = buffer.indexOf(binary ? BINARY : 0x23, start + 1);
      if (end < 0) {
        if (buffer.length - start > MAX_FRAME) throw new FrameError('gosafe: packet too long');
        return null;
      }
      const frame = buffer.subarray(start, end + 1);
      return { frame: binary ? unescape(frame) : frame, consumed: end + 1 };
    },
  };
}

// ---- text -------------------------------------------------------------------------------------

const NUM = /^-?\d+(?:\.\d+)?$/;
const num = (s: string | undefined) => (s !== undefined && NUM.test(s) ? Number(s) : undefined);
const HEX = /^[0-9A-Fa-f]+$/;

function coordinate(s: string | undefined, negative: string): number | undefined {
  const m = /^([NSEW])(\d+\.\d+)$/.exec(s ?? '');
  if (!m) return undefined;
  return m[1] === negative[0] || m[1] === negative[1] ? -Number(m[2]) : Number(m[2]);
}

function gps(v: string[], rec: DeviceRecord): void {
  const lat = coordinate(v[2], 'S');
  const lng = coordinate(v[3], 'W');
  if (lat === undefined || lng === undefined || Math.abs(lat) > 90 || Math.abs(lng) > 180) return;
  Object.assign(rec, { valid: v[0] === 'A', lat, lng });
  const sats = num(v[1]);
  if (sats !== undefined) rec.satellites = sats;
  const speed = num(v[4]);
  if (speed !== undefined) rec.speed = speed;
  const course = num(v[5]);
  if (course !== undefined && course <= 360) rec.course = course;
  const altitude = num(v[6]);
  if (altitude !== undefined) rec.altitude = altitude;
  const hdop = num(v[7]);
  if (hdop !== undefined) rec.hdop = hdop;
  const vdop = num(v[8]);
  if (vdop !== undefined) rec.attributes.vdop = vdop;
}

function gsm(v: string[], rec: DeviceRecord): void {
  const cells: Cell[] = [];
  for (let i = 2; i + 4 < v.length && cells.length < 16; i += 5) {
    const [mcc, mnc, lac, cid, rssi] = v.slice(i, i + 5);
    if (!/^\d+$/.test(mcc ?? '') || !/^\d+$/.test(mnc ?? '') || !HEX.test(lac ?? '') || !HEX.test(cid ?? '') || lac.length > 8 || cid.length > 8) break;
    const cell: Cell = { mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16) };
    if (num(rssi) !== undefined) cell.rssi = Number(rssi);
    cells.push(cell);
  }
  if (cells.length) rec.cells = cells;
  if (/^\d+$/.test(v[1] ?? '')) rec.attributes[Attr.rssi] = Number(v[1]);
}

/** DTT io byte: bit 0 ignition, bits 1..4 inputs 1..4, bits 5..7 outputs 1..3. */
function io(value: number, a: Record<string, AttrValue>): void {
  a[Attr.ignition] = (value & 1) === 1;
  for (let i = 1; i <= 4; i++) a[indexed.in(i)] = ((value >> i) & 1) === 1;
  for (let i = 1; i <= 3; i++) a[indexed.out(i)] = ((value >> (i + 4)) & 1) === 1;
}

/** OBD mode 01 answers, each `<length><41><pid><data>`: the common engine values. */
function obd(hex: string, a: Record<string, AttrValue>): void {
  if (!/^([0-9A-Fa-f]{2})+$/.test(hex)) return;
  const b = Buffer.from(hex, 'hex');
  for (let i = 0; i < b.length; ) {
    const n = b[i];
    if (!n || i + 1 + n > b.length) break;
    if (b[i + 1] === 0x41 && n >= 3) {
      const [x, y] = [b[i + 3], b[i + 4] ?? 0];
      switch (b[i + 2]) {
        case 0x04: a[Attr.engineLoad] = (x * 100) / 255; break;
        case 0x05: a[Attr.coolantTemp] = x - 40; break;
        case 0x0c: a[Attr.rpm] = (x * 256 + y) / 4; break;
        case 0x0d: a[Attr.obdSpeed] = x; break;
        case 0x11: a[Attr.throttle] = (x * 100) / 255; break;
        case 0x1f: a.engineRunTime = x * 256 + y; break;
        case 0x2f: a[Attr.fuelLevel] = (x * 100) / 255; break;
      }
    }
    i += 1 + n;
  }
}

function section(name: string, v: string[], rec: DeviceRecord): void {
  const a = rec.attributes;
  switch (name) {
    case 'GPS':
      return gps(v, rec);
    case 'GSM':
      return gsm(v, rec);
    case 'COT': {
      const odometer = num(v[0]);
      if (odometer !== undefined) a[Attr.odometer] = odometer;
      const h = (v[1] ?? '').split('-').map(Number);
      if (v[1] && h.every(Number.isFinite)) a[Attr.hours] = ((h[0] ?? 0) * 3600 + (h[1] ?? 0) * 60 + (h[2] ?? 0)) * 1000;
      return;
    }
    case 'ADC': {
      const keys = [Attr.power, Attr.battery, indexed.adc(1), indexed.adc(2)];
      v.slice(0, 4).forEach((x, i) => num(x) !== undefined && (a[keys[i]] = Number(x)));
      return;
    }
    case 'DTT':
      if (HEX.test(v[0] ?? '')) a[Attr.status] = parseInt(v[0], 16);
      if (/^[0-9A-Fa-f]{1,2}$/.test(v[1] ?? '')) io(parseInt(v[1], 16), a);
      if (v[4]) a.eventStatus = v[4];
      if (v[5]) a.packetType = v[5];
      return;
    case 'IWD':
      for (let i = 0; i + 2 < v.length; ) {
        const [index, type] = [Number(v[i]), v[i + 1]];
        if (type === '0') {
          if (/[1-9A-Fa-f]/.test(v[i + 2])) a[Attr.driverUniqueId] = v[i + 2];
          i += 3;
        } else if (type === '1' && i + 3 < v.length) {
          const t = num(v[i + 3]);
          if (t !== undefined && Number.isInteger(index)) a[indexed.temp(index)] = t;
          i += 4;
        } else break;
      }
      return;
    case 'OBD':
      return obd(v[0] ?? '', a);
    case 'ETD':
      if (v[0]) a.eventData = v.join(';');
      return;
  }
}

function decodeRecord(item: string, ctx: DecodeContext, session: Session): DeviceRecord {
  const fields = item.split(',');
  const rec: DeviceRecord = { attributes: {} };
  let i = 0;
  const t = /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/.exec(fields[0] ?? '');
  if (t) {
    const [hh, mi, ss, dd, mo, yy] = t.slice(1).map(Number);
    rec.time = dd && mo ? Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss) : ctx.now;
    i = 1;
  } else if (fields[0] && !fields[0].includes(':')) {
    rec.attributes[Attr.result] = fields[0];
    i = 1;
  }
  for (; i < fields.length; i++) {
    const f = fields[i];
    if (!f) continue;
    if (HEX.test(f)) {
      if (f.length <= 8) rec.attributes[Attr.event] = parseInt(f, 16);
      continue;
    }
    const colon = f.indexOf(':');
    if (colon > 0) section(f.slice(0, colon), f.slice(colon + 1).split(';'), rec);
  }
  if (rec.lat === undefined) return withLastFix(rec, session);
  rememberFix(session, rec);
  return rec;
}

const OLD_GPS = /^(\d\d)(\d\d)(\d\d);(?:\d;)?([AV]);([NS]\d+\.\d+);([EW]\d+\.\d+);(\d+)?;(\d+);(?:(\d+\.?\d*);)?(\d\d)(\d\d)(\d\d)/;

/** `*GS02` firmware: `GPS:`, `STT:`, `MGR:`, `ADC:` (index;value pairs) sections. */
function decodeOld(parts: string[]): DeviceRecord | undefined {
  const rec: DeviceRecord = { attributes: {} };
  const a = rec.attributes;
  for (const part of parts) {
    const colon = part.indexOf(':');
    const [name, value] = [part.slice(0, colon), part.slice(colon + 1)];
    const v = value.split(';');
    if (name === 'GPS') {
      const m = OLD_GPS.exec(value);
      if (!m) return undefined;
      const [, hh, mi, ss, validity, lat, lng, speed, course, hdop, dd, mo, yy] = m;
      const la = coordinate(lat, 'S')!;
      const lo = coordinate(lng, 'W')!;
      if (Math.abs(la) > 90 || Math.abs(lo) > 180) return undefined;
      Object.assign(rec, {
        time: Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss)),
        valid: validity === 'A',
        lat: la,
        lng: lo,
        speed: Number(speed ?? 0),
        course: Math.min(Number(course), 360),
      });
      if (hdop !== undefined) rec.hdop = Number(hdop);
    } else if (name === 'STT' && /^\d+$/.test(v[0])) {
      a[Attr.status] = Number(v[0]);
    } else if (name === 'MGR' && /^\d+$/.test(v[0])) {
      a[Attr.odometer] = Number(v[0]);
    } else if (name === 'ADC') {
      const keys: Record<string, string> = { '0': Attr.power, '1': Attr.deviceTemp, '2': Attr.battery };
      for (let i = 0; i + 1 < v.length; i += 2) if (keys[v[i]] && num(v[i + 1]) !== undefined) a[keys[v[i]]] = Number(v[i + 1]);
    }
  }
  return rec.lat === undefined ? undefined : rec;
}

interface Session {
  last?: LastFix;
}

function decodeText(s: string, ctx: DecodeContext): DecodeResult {
  const m = /^\*GS(\d+),(\d+)(?:,([^#]*))?#?$/.exec(s.trim());
  if (!m) throw new DecodeError('gosafe: not a GS packet');
  const [, version, imei, data] = m;
  const session = ctx.session as Session;
  if (!data) return { deviceId: imei, reply: ACK };
  if (version === '02') {
    const rec = decodeOld(data.split(','));
    return { deviceId: imei, records: rec ? [rec] : [], reply: ACK };
  }
  const items = data.split('$').slice(0, 256);
  return { deviceId: imei, records: items.map((item) => decodeRecord(item, ctx, session)), reply: ACK };
}

// ---- binary -----------------------------------------------------------------------------------

const SECONDS_2000 = Date.UTC(2000, 0, 1);

function binaryGps(r: Reader, end: number, rec: DeviceRecord): void {
  const mask = r.u16();
  const read = (bit: number, f: () => void) => mask & (1 << bit) && r.pos < end && f();
  read(0, () => {
    const flag = r.u8();
    rec.satellites = flag & 0x1f;
    rec.valid = (flag & 0x60) !== 0;
  });
  read(1, () => {
    const lat = r.i32() / 1e6;
    const lng = r.i32() / 1e6;
    if (Math.abs(lat) <= 90 && Math.abs(lng) <= 180) Object.assign(rec, { lat, lng });
  });
  read(2, () => (rec.speed = r.u16()));
  read(3, () => (rec.course = r.u16() % 360));
  read(4, () => (rec.altitude = r.i16()));
  read(5, () => (rec.hdop = r.u16() / 100));
  read(6, () => (rec.attributes.vdop = r.u16() / 100));
}

/** Sub-items `<id 4 bits><length 4 bits><value>`. */
function items(r: Reader, end: number, each: (id: number, value: Buffer) => void): void {
  while (r.pos < end) {
    const head = r.u8();
    const value = r.bytes(Math.min(head & 0x0f, end - r.pos));
    each(head >> 4, value);
  }
}
const uint = (b: Buffer) => (b.length && b.length <= 6 ? b.readUIntBE(0, b.length) : 0);
/** ADC counts to volts: 12 bits over -10..100 V. */
const adcVolts = (v: number) => Math.round(((v * 110) / 4096 - 10) * 100) / 100;

function decodeBinary(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 1, frame.length - 1);
  r.skip(1); // protocol version
  const type = r.u8();
  const imei = String(r.uint(6) * 256 + r.u8()); // 7-byte number
  if (type === 0 || r.remaining < 6) return { deviceId: imei, reply: ACK };
  const rec: DeviceRecord = { time: SECONDS_2000 + r.u32() * 1000, attributes: {} };
  const a = rec.attributes;
  const mask = r.u16();
  const event = (type & 0x40) !== 0;
  const blocks = event ? ['SYS', 'GPS', 'GSM', 'COT', 'ADC', 'DTT', 'IWD', 'ETD', 'OBD', 'FUL'] : ['SYS', 'GPS', 'GSM', 'COT', 'ADC', 'DTT', 'IWD', 'OBD', 'FUL'];
  const dataEnd = r.end - 2; // CRC
  for (let bit = 0; bit < blocks.length && r.pos < dataEnd; bit++) {
    if (!(mask & (1 << bit))) continue;
    const length = r.u8();
    const end = r.pos + length;
    if (end > dataEnd) throw new DecodeError('gosafe: block past the end');
    switch (blocks[bit]) {
      case 'GPS':
        binaryGps(r, end, rec);
        break;
      case 'COT':
        items(r, end, (id, v) => (id === 0 ? (a[Attr.odometer] = uint(v)) : id === 1 ? (a[Attr.hours] = uint(v) * 1000) : undefined));
        break;
      case 'ADC':
        while (r.pos + 1 < end) {
          const v = r.u16();
          const key = [Attr.power, Attr.battery, indexed.adc(1), indexed.adc(2)][v >> 12];
          if (key) a[key] = adcVolts(v & 0xfff);
        }
        break;
      case 'DTT':
        items(r, end, (id, v) => {
          if (id === 0) a[Attr.status] = uint(v);
          else if (id === 1 && v.length) io(v[v.length - 1], a);
          else if (id === 5) a.packetType = uint(v);
        });
        break;
    }
    r.pos = end;
  }
  if (rec.lat === undefined) return { deviceId: imei, records: [withLastFix(rec, ctx.session as Session)], reply: ACK };
  rememberFix(ctx.session as Session, rec);
  return { deviceId: imei, records: [rec], reply: ACK };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame[0] === BINARY) {
    if (frame.length < 12) throw new DecodeError('gosafe: short binary packet');
    return decodeBinary(frame, ctx);
  }
  return decodeText(frame.toString('latin1'), ctx);
}

export const protocol: Protocol = {
  name: 'gosafe',
  defaultPort: 5078,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  carriesText: false,
};
