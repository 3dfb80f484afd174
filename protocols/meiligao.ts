/**
 * Meiligao (GT30i, GT60, VT300, VT310, VT400 and compatibles) binary-framed GPRS protocol.
 *
 *   device -> server  `$$ | u16 length | 7-byte BCD id (F-padded) | u16 command | data | u16 CRC | \r\n`
 *   server -> device  `@@ | ...same layout...`
 * The length counts the whole packet; the CRC is CRC-16/CCITT-FALSE over everything before it. Many
 * devices send a zero length or a checksum of their own, so neither is trusted by the decoder.
 * Position data is a GPRMC sentence followed by `|`-separated extras:
 *   `|hdop|altitude|state|adc1,adc2[,...]|cell|rssi|journey|satellites|driver` or, on older
 *   firmware, `|hdop|altitude|state|adc1,adc2|journey (decimal)|rfid`.
 * Commands: 0x5000 login (answered 0x4000 01), 0x0001 heartbeat (echoed with 01), 0x9955 position,
 * 0x9016 logged position, 0x9999 alarm (alarm code + position), 0x6688 retransmitted positions,
 * 0x9966 RFID cards, 0x9901/0x9902 OBD, 0x9903 DTC, 0x0800/0x9988/0x9977/0x0f80 photo upload.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader, crc16CcittFalse, knotsToKmh, nmeaDegrees, u16be } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
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
  type MediaFile,
  type Protocol,
} from './types.ts';

const MAX_FRAME = 4096;
const MIN_PACKET = 17; // header 2 + length 2 + id 7 + command 2 + CRC 2 + CRLF 2
const PHOTO_MAX = 1 << 20;

const MSG = {
  heartbeat: 0x0001,
  login: 0x5000,
  loginResponse: 0x4000,
  position: 0x9955,
  positionLogged: 0x9016,
  alarm: 0x9999,
  rfid: 0x9966,
  retransmission: 0x6688,
  obd: 0x9901,
  obdTotals: 0x9902,
  dtc: 0x9903,
  uploadPhoto: 0x0800,
  uploadPhotoResponse: 0x8801,
  photoData: 0x9988,
  positionImage: 0x9977,
  uploadComplete: 0x0f80,
} as const;

const isHeader = (b: Buffer, i: number) => (b[i] === 0x24 && b[i + 1] === 0x24) || (b[i] === 0x40 && b[i + 1] === 0x40);

/**
 * A packet runs for its length field; where the length is zero or impossible (older firmware), it
 * runs to the first CRLF. Bytes before a `$$`/`@@` header are skipped.
 */
function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start + 1 < buffer.length && !isHeader(buffer, start)) start++;
      if (start + 4 > buffer.length) {
        if (buffer.length > MAX_FRAME) throw new FrameError('meiligao: no packet header');
        return null;
      }
      const length = u16be(buffer, start + 2);
      if (length >= MIN_PACKET && length <= MAX_FRAME) {
        if (buffer.length - start < length) return null;
        return { frame: buffer.subarray(start, start + length), consumed: start + length };
      }
      const end = buffer.indexOf('\r\n', start + MIN_PACKET - 2);
      if (end < 0) {
        if (buffer.length - start > MAX_FRAME) throw new FrameError('meiligao: packet too long');
        return null;
      }
      return { frame: buffer.subarray(start, end + 2), consumed: end + 2 };
    },
  };
}

// ---- identity and replies ---------------------------------------------------------------------

/** The id: BCD digits up to the first 0xF nibble. */
function readId(raw: Buffer): string {
  const hex = raw.toString('hex');
  const end = hex.indexOf('f');
  const id = end < 0 ? hex : hex.slice(0, end);
  if (!/^\d+$/.test(id)) throw new DecodeError('meiligao: bad device id');
  return id;
}

/** Server packet for `id` (7 raw bytes, as the device sent them or packed from its id). */
function packet(id: Buffer, command: number, data: Buffer = Buffer.alloc(0)): Buffer {
  const out = Buffer.alloc(MIN_PACKET + data.length);
  out.write('@@', 0, 'latin1');
  out.writeUInt16BE(out.length, 2);
  id.copy(out, 4);
  out.writeUInt16BE(command, 11);
  data.copy(out, 13);
  out.writeUInt16BE(crc16CcittFalse(out, 0, out.length - 4), out.length - 4);
  out.write('\r\n', out.length - 2, 'latin1');
  return out;
}

/** An id as the 7 bytes the device expects: up to 14 digits, padded with F. */
function packId(deviceId: string): Buffer {
  const digits = deviceId.replace(/\D/g, '').slice(0, 14);
  return Buffer.from(digits.padEnd(14, 'f'), 'hex');
}

// ---- position data ----------------------------------------------------------------------------

const ALARMS: Record<number, string> = {
  0x01: Alarm.sos,
  0x10: Alarm.lowBattery,
  0x11: Alarm.overspeed,
  0x12: Alarm.movement,
  0x13: Alarm.geofenceEnter,
  0x14: Alarm.accident,
  0x50: Alarm.powerCut,
  0x53: Alarm.gpsAntennaCut,
  0x72: Alarm.hardBraking,
  0x73: Alarm.hardAcceleration,
};

const TIME = /^(\d{1,2})(\d\d)(\d\d)(?:\.\d*)?$/;
const DATE = /^(\d\d)(\d\d)(\d\d)/;
const COORD = /^\d{1,5}\.\d+$/;
const NUMBER = /^-?\d+(?:\.\d+)?$/;
const HEX = /^[0-9A-Fa-f]+$/;
const num = (s: string | undefined) => (s !== undefined && NUMBER.test(s) ? Number(s) : undefined);

/** Base station id: `mcc mnc lac cid` in hex, 4 digits each (cid 8 digits in the 20-digit form). */
function cell(s: string): Cell | undefined {
  const cidLength = s.length === 20 ? 8 : 4;
  const [mcc, mnc, lac, cid] = [s.slice(0, 4), s.slice(4, 8), s.slice(8, 12), s.slice(12, 12 + cidLength)].map((x) => parseInt(x, 16));
  return mcc && cid ? { mcc, mnc, lac, cid } : undefined;
}

/** GPRMC plus the `|` extras; undefined when the sentence is not a position. */
function decodeSentence(sentence: string): DeviceRecord | undefined {
  const fields = sentence.split('|');
  const f = fields[0].split(',');
  const t = TIME.exec(f[0] ?? '');
  const d = DATE.exec(f[8] ?? '');
  if (!t || !d || (f[1] !== 'A' && f[1] !== 'V') || !COORD.test(f[2] ?? '') || !COORD.test(f[4] ?? '')) return undefined;
  if (!/^[NS]$/.test(f[3]) || !/^[EW]$/.test(f[5])) return undefined;
  const lat = nmeaDegrees(Number(f[2]));
  const lng = nmeaDegrees(Number(f[4]));
  if (lat > 90 || lng > 180) return undefined;
  const [hh, mi, ss] = t.slice(1).map(Number);
  const [dd, mo, yy] = d.slice(1).map(Number);
  const record: DeviceRecord = {
    time: Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss),
    valid: f[1] === 'A',
    lat: f[3] === 'S' ? -lat : lat,
    lng: f[5] === 'W' ? -lng : lng,
    attributes: {},
  };
  const speed = num(f[6]);
  if (speed !== undefined) record.speed = knotsToKmh(speed);
  const course = num(f[7]);
  if (course !== undefined && course <= 360) record.course = course;
  extras(fields, record);
  return record;
}

function extras(x: string[], record: DeviceRecord): void {
  const a = record.attributes;
  const hdop = num(x[1]);
  if (hdop !== undefined) record.hdop = hdop;
  const altitude = num(x[2]);
  if (altitude !== undefined) record.altitude = altitude;
  const state = /^[0-9A-Fa-f]{4}/.exec(x[3] ?? '');
  if (state) {
    // low byte: outputs 1..5, high byte: inputs 1..5
    const v = parseInt(state[0], 16);
    for (let i = 1; i <= 5; i++) {
      a[indexed.out(i)] = ((v >> (i - 1)) & 1) === 1;
      a[indexed.in(i)] = ((v >> (i + 7)) & 1) === 1;
    }
  }
  const adc = (x[4] ?? '').split(',');
  if (adc.length >= 2 && adc.length <= 8 && adc.every((v) => /^[0-9A-Fa-f]{4}$/.test(v))) {
    adc.forEach((v, i) => (a[indexed.adc(i + 1)] = parseInt(v, 16)));
  } else return;
  const fifth = x[5] ?? '';
  if (fifth.length >= 16 && fifth.length <= 20 && HEX.test(fifth)) {
    const c = cell(fifth);
    if (c) record.cells = [c];
    if (x[6] !== undefined && /^[0-9A-Fa-f]{2}$/.test(x[6])) a[Attr.rssi] = parseInt(x[6], 16);
    if (x[7] !== undefined && /^[0-9A-Fa-f]{8}$/.test(x[7])) a[Attr.odometer] = parseInt(x[7], 16);
    if (x[8] !== undefined && /^[0-9A-Fa-f]{2}$/.test(x[8])) {
      record.satellites = parseInt(x[8], 16);
      a.sat = record.satellites;
    }
    const driver = x.slice(9).join('|').trim();
    if (driver) a.driverLicense = driver;
  } else if (/^\d{1,9}$/.test(fifth)) {
    a[Attr.odometer] = Number(fifth);
    if (x[6] !== undefined && /^[0-9A-Fa-f]{5,}$/.test(x[6])) a[Attr.driverUniqueId] = x[6];
  }
}

/** Alarm code byte of 0x9999: an alarm, or an input going active (0x02..0x05) / inactive (0x32..0x35). */
function alarmAttributes(code: number, a: Record<string, AttrValue>): void {
  const alarm = ALARMS[code];
  if (alarm) a[Attr.alarm] = alarm;
  if (code >= 0x02 && code <= 0x05) a[indexed.in(code)] = true;
  if (code >= 0x32 && code <= 0x35) a[indexed.in(code - 0x30)] = false;
  a[Attr.event] = code;
}

const RFID = /^\|(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(\d{1,5}\.\d+),([NS]),(\d{1,5}\.\d+),([EW])/;

/** 0x9966: fifteen 32-bit card numbers, then `|hhmmss,ddmmyy,lat,N,lon,E`. */
function decodeRfid(r: Reader, sentence: () => string): DeviceRecord | undefined {
  const a: Record<string, AttrValue> = {};
  for (let i = 1; i <= 15; i++) {
    const card = r.u32();
    if (card) a[`card${i}`] = a[Attr.driverUniqueId] = String(card).padStart(10, '0');
  }
  const m = RFID.exec(sentence());
  if (!m) return undefined;
  const [, hh, mi, ss, dd, mo, yy, lat, ns, lng, ew] = m;
  const la = nmeaDegrees(Number(lat));
  const lo = nmeaDegrees(Number(lng));
  if (la > 90 || lo > 180) return undefined;
  return {
    time: Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss)),
    valid: true,
    lat: ns === 'S' ? -la : la,
    lng: ew === 'W' ? -lo : lo,
    attributes: a,
  };
}

const OBD_KEYS = [
  Attr.battery, Attr.rpm, Attr.obdSpeed, Attr.throttle, Attr.engineLoad, Attr.coolantTemp, Attr.fuelConsumption,
  'averageFuelConsumption', 'drivingRange', 'obdOdometer', 'tripFuelUsed', Attr.fuelUsed, 'faultCount',
  'hardAccelerationCount', 'hardBrakingCount',
];
const OBD_TOTALS_KEYS = [
  'ignitionCount', 'drivingTime', 'idlingTime', 'averageHotStartTime', 'averageSpeed', 'maxSpeed', 'maxRpm',
  'hardAccelerationTotal', 'hardBrakingTotal',
];

/** OBD data: comma-separated numbers in a fixed order (0x9901 live values, 0x9902 totals). */
function decodeObd(s: string, keys: string[]): DeviceRecord | undefined {
  const v = s.split(',');
  if (v.length < keys.length || !v.slice(0, keys.length).every((x) => NUMBER.test(x))) return undefined;
  const a: Record<string, AttrValue> = {};
  keys.forEach((k, i) => (a[k] = Number(v[i])));
  if (typeof a.obdOdometer === 'number') a.obdOdometer *= 1000; // km -> m
  return { attributes: a };
}

// ---- decoding ---------------------------------------------------------------------------------

interface Session {
  last?: LastFix;
  photos?: Map<number, Buffer[]>;
  photoSize?: number;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length < MIN_PACKET || !isHeader(frame, 0)) throw new DecodeError('meiligao: not a packet');
  const declared = u16be(frame, 2);
  const end = (declared >= MIN_PACKET && declared <= frame.length ? declared : frame.length) - 4;
  const rawId = frame.subarray(4, 11);
  const command = u16be(frame, 11);
  const r = new Reader(frame, 13, end);
  const session = ctx.session as Session;
  const sentence = () => frame.toString('latin1', r.pos, end);

  switch (command) {
    case MSG.login:
      return { deviceId: readId(rawId), reply: packet(rawId, MSG.loginResponse, Buffer.of(0x01)) };
    case MSG.heartbeat:
      return { deviceId: readId(rawId), reply: packet(rawId, MSG.heartbeat, Buffer.of(0x01)) };
    case MSG.uploadPhoto: {
      const index = r.u8();
      (session.photos ??= new Map()).set(index, []);
      session.photoSize = 0;
      return { deviceId: readId(rawId), reply: packet(rawId, MSG.uploadPhotoResponse, Buffer.of(index)) };
    }
    case MSG.uploadComplete: {
      const index = r.u8();
      return { deviceId: readId(rawId), reply: packet(rawId, MSG.retransmission, Buffer.of(index, 0, 0)) };
    }
  }

  const deviceId = readId(rawId);
  const records: DeviceRecord[] = [];
  const media: MediaFile[] = [];
  const fix = (rec: DeviceRecord | undefined) => {
    if (!rec) return;
    rememberFix(session, rec);
    records.push(rec);
  };
  switch (command) {
    case MSG.position:
      fix(decodeSentence(sentence()));
      break;
    case MSG.positionLogged:
      r.skip(6);
      fix(decodeSentence(sentence()));
      break;
    case MSG.alarm: {
      const code = r.u8();
      const rec = decodeSentence(sentence());
      if (rec) alarmAttributes(code, rec.attributes);
      fix(rec);
      break;
    }
    case MSG.retransmission: {
      // count, then per position: alarm code + sentence, positions separated by `\`
      const count = r.u8();
      for (let i = 0; i < count && r.remaining > 0; i++) {
        const code = r.u8();
        let stop = frame.indexOf(0x5c, r.pos);
        if (stop < 0 || stop > end) stop = end;
        const rec = decodeSentence(frame.toString('latin1', r.pos, stop));
        if (rec && code) alarmAttributes(code, rec.attributes);
        fix(rec);
        r.pos = Math.min(stop + 1, end);
      }
      break;
    }
    case MSG.rfid:
      fix(decodeRfid(r, sentence));
      break;
    case MSG.obd:
    case MSG.obdTotals: {
      const rec = decodeObd(sentence(), command === MSG.obd ? OBD_KEYS : OBD_TOTALS_KEYS);
      if (rec) records.push(withLastFix(rec, session));
      break;
    }
    case MSG.dtc: {
      const codes = sentence().split(/[,\s]+/).filter((c) => /^[0-9A-Za-z]+$/.test(c)).join(' ');
      if (codes) records.push(withLastFix({ attributes: { [Attr.dtcs]: codes } }, session));
      break;
    }
    case MSG.photoData: {
      const index = r.u8();
      r.skip(4); // image size, packet count, packet index
      const parts = session.photos?.get(index);
      const chunk = frame.subarray(r.pos, end);
      if (parts && (session.photoSize ?? 0) + chunk.length <= PHOTO_MAX) {
        parts.push(Buffer.from(chunk));
        session.photoSize = (session.photoSize ?? 0) + chunk.length;
      } else session.photos?.delete(index);
      break;
    }
    case MSG.positionImage: {
      const index = r.u8();
      r.skip(1); // upload type
      const rec = decodeSentence(sentence());
      const parts = session.photos?.get(index);
      session.photos?.delete(index);
      if (rec && parts?.length) {
        rec.attributes.image = '';
        media.push({ record: records.length, attribute: 'image', data: Buffer.concat(parts), extension: 'jpg' });
      }
      fix(rec);
      break;
    }
  }
  return media.length ? { deviceId, records, media } : { deviceId, records };
}

// ---- commands ---------------------------------------------------------------------------------

const u16 = (v: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(Math.max(0, Math.min(0xffff, Math.round(v))));
  return b;
};

/** `GMT+8`, `+5:30`, `-3` -> offset in minutes. */
function timezoneMinutes(value: unknown): number {
  const m = /([+-]?)(\d{1,2})(?::?(\d\d))?\s*$/.exec(String(value ?? ''));
  if (!m) throw new Error('meiligao: bad timezone');
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === '-' ? -minutes : minutes;
}

const COMMANDS: Record<string, (c: Command) => [number, Buffer?]> = {
  positionSingle: () => [0x4101],
  // the interval is given in units of 10 seconds
  positionPeriodic: (c) => [0x4102, u16(Number(c.attributes.frequency ?? 0) / 10)],
  alarmGeofence: (c) => [0x4106, u16(Number(c.attributes.radius ?? 0))],
  engineStop: () => [0x4115, Buffer.of(0x01)],
  engineResume: () => [0x4115, Buffer.of(0x00)],
  setTimezone: (c) => [0x4132, Buffer.from(String(timezoneMinutes(c.attributes.timezone)), 'latin1')],
  rebootDevice: () => [0x4902],
  // hex of the command word and its parameters, e.g. `4114010001` (output control)
  custom: (c) => {
    const hex = String(c.attributes.data ?? '').replace(/\s/g, '');
    if (!/^([0-9a-fA-F]{2}){2,}$/.test(hex)) throw new Error('meiligao: custom data must be hex of a command and its parameters');
    const b = Buffer.from(hex, 'hex');
    return [u16be(b, 0), b.subarray(2)];
  },
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`meiligao: unsupported command ${command.type}`);
  const [type, data] = build(command);
  return packet(packId(ctx.deviceId), type, data);
}

export const protocol: Protocol = {
  name: 'meiligao',
  defaultPort: 5009,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  carriesText: false,
  encode,
};
