/**
 * Aquila (aQuila vehicle trackers) comma-separated text reports:
 *   `$$<client>_<model>,<serial>,<event>,<lat>,<lng>,<yymmddhhmmss>,<A|V>,<values...>,*<xor>`
 * with signed decimal degrees. The values that follow depend on the firmware, told apart by count
 * (LAYOUTS below names each):
 *   37  gsm, km/h, odometer, driver code, fuel, flags (input 1, case open, overspeed, power, input 2,
 *       ignition, ...), direction as four bits (one of eight sectors)
 *   43  gsm, km/h, odometer, course, satellites, hdop, analog 1, flags (inputs, case open, overspeed,
 *       immobilizer, power, ignition, low battery, output 1, harsh acceleration and braking), supply, battery
 *   51  gsm, km/h, odometer, course, flags, direction bits, supply, battery, `P(pid:response|...)` OBD
 *       answers, `D(code|...)` fault codes, accelerometer x/y/z, distance since the last report
 *    2  a sensor report: sensor id and its data
 * A settings report (event 15, `key:value` fields) yields nothing. The checksum (XOR of the bytes
 * between `$$` and `*`) is not trusted: devices are seen sending wrong ones. Devices expect no answer
 * (none is documented).
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { utc } from './text.ts';
import { DecodeError, FrameError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;

/** A report runs from `$$` to `*` and its two checksum digits; bytes before `$$` (line breaks) are skipped. */
function createFramer(): Framer {
  return {
    next(buffer) {
      const start = buffer.indexOf('$$');
      if (start < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('aquila: no report start');
        return null;
      }
      const star = buffer.indexOf(0x2a, start + 2);
      if (star < 0 || star + 3 > buffer.length) {
        if (buffer.length - start > MAX_FRAME) throw new FrameError('aquila: report too long');
        return null;
      }
      return { frame: buffer.subarray(start, star + 3), consumed: star + 3 };
    },
  };
}

const HEAD = /^\$\$([^,]*),(\d+),(\d+),(-?\d+\.\d+),(-?\d+\.\d+),(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),([AV]),(.*?),?\*([0-9A-Fa-f]{2})?$/s;

/**
 * Volts from a supply or battery value: firmware sends millivolts or hundredths of a volt. A value
 * above what hundredths can mean (`limit`: 50 V supply, 10 V battery) is millivolts.
 */
const volts = (v: number, limit: number): number => (v >= limit ? v / 1000 : v / 100);
const SUPPLY = 5000;
const BATTERY = 1000;

/** OBD mode 01 answers `41 <pid> <bytes>` by pid, for the values the vocabulary names. */
const PIDS: Record<number, (b: Buffer, a: Record<string, AttrValue>) => void> = {
  0x04: (b, a) => (a[Attr.engineLoad] = Math.round((b[0] * 100) / 255)),
  0x05: (b, a) => (a[Attr.coolantTemp] = b[0] - 40),
  0x0c: (b, a) => b.length >= 2 && (a[Attr.rpm] = ((b[0] << 8) | b[1]) / 4),
  0x0d: (b, a) => (a[Attr.obdSpeed] = b[0]),
  0x11: (b, a) => (a[Attr.throttle] = Math.round((b[0] * 100) / 255)),
  0x2f: (b, a) => (a[Attr.fuelLevel] = Math.round((b[0] * 100) / 255)),
};

function obd(field: string, a: Record<string, AttrValue>): void {
  for (const item of field.slice(2, -1).split('|')) {
    const m = /^[0-9A-Fa-f]{2}:41([0-9A-Fa-f]{2})((?:[0-9A-Fa-f]{2})+)$/.exec(item);
    if (!m) continue;
    const read = PIDS[parseInt(m[1], 16)];
    if (read) read(Buffer.from(m[2], 'hex'), a);
  }
}

/** What a value of a periodic report is; `_` is reserved or not used here. */
type Key =
  | '_' | 'rssi' | 'speed' | 'odometer' | 'driver' | 'fuel' | 'in1' | 'in2' | 'out1' | 'caseOpen' | 'overspeed'
  | 'charge' | 'ignition' | 'course' | 'courseBit' | 'satellites' | 'hdop' | 'adc1' | 'blocked' | 'lowBattery'
  | 'hardAcceleration' | 'hardBraking' | 'power' | 'battery' | 'obd' | 'dtcs' | 'signed';

const _ = (n: number): Key[] => Array<Key>(n).fill('_');
const COURSE_BITS: Key[] = ['courseBit', 'courseBit', 'courseBit', 'courseBit'];

/** The layouts, told apart by their number of values (see the header comment). */
const LAYOUTS: Record<number, Key[]> = {
  37: [
    'rssi', 'speed', 'odometer', 'driver', 'fuel', 'in1', 'caseOpen', 'overspeed', '_', ..._(3), 'charge', 'in2', '_',
    'ignition', '_', ..._(7), '_', ..._(8), ...COURSE_BITS,
  ],
  43: [
    'rssi', 'speed', 'odometer', 'course', 'satellites', 'hdop', ..._(2), 'adc1', 'in1', 'caseOpen', 'overspeed', '_',
    ..._(2), 'blocked', 'charge', 'in2', ..._(2), 'ignition', ..._(6), 'lowBattery', '_', ..._(4), 'out1', '_',
    'hardAcceleration', 'hardBraking', ..._(4), 'power', 'battery',
  ],
  51: [
    'rssi', 'speed', 'odometer', 'course', ..._(3), 'overspeed', '_', ..._(3), 'charge', ..._(2), '_', 'ignition', '_',
    ..._(5), 'lowBattery', '_', ..._(6), 'hardAcceleration', 'hardBraking', ...COURSE_BITS, 'power', 'battery', ..._(6),
    'obd', 'dtcs', 'signed', 'signed', 'signed', '_',
  ],
};

const DECIMAL = /^\d+(?:\.\d+)?$/;
const SIGNED = /^-?\d+$/;
const valueOk = (k: Key, x: string): boolean =>
  k === 'obd' ? /^P\(.*\)$/.test(x) : k === 'dtcs' ? /^D\(.*\)$/.test(x) : k === 'signed' ? SIGNED.test(x) : DECIMAL.test(x);

const FLAG_ALARMS: Partial<Record<Key, string>> = {
  caseOpen: Alarm.tampering,
  overspeed: Alarm.overspeed,
  lowBattery: Alarm.lowBattery,
  hardAcceleration: Alarm.hardAcceleration,
  hardBraking: Alarm.hardBraking,
};

function periodic(layout: Key[], v: string[], record: DeviceRecord): void {
  const a = record.attributes;
  let courseBits = 0;
  layout.forEach((k, i) => {
    const x = v[i];
    const on = x === '1';
    switch (k) {
      case 'rssi': a[Attr.rssi] = Number(x); break;
      case 'speed': record.speed = Number(x); break;
      case 'odometer': a[Attr.odometer] = Number(x); break; // metres: it grows by 2 km in half an hour at 12 km/h
      case 'driver': if (x !== '0') a[Attr.driverUniqueId] = x; break;
      case 'fuel': a.fuelSensor = Number(x); break; // raw sensor reading, unit unknown
      case 'in1': a[indexed.in(1)] = on; break;
      case 'in2': a[indexed.in(2)] = on; break;
      case 'out1': a[indexed.out(1)] = on; break;
      case 'charge': a[Attr.charge] = on; break;
      case 'ignition': a[Attr.ignition] = on; break;
      case 'blocked': a[Attr.blocked] = on; break;
      case 'adc1': a[indexed.adc(1)] = Number(x); break;
      case 'course': if (Number(x) <= 360) record.course = Number(x); break;
      case 'courseBit': courseBits = (courseBits << 1) | (on ? 1 : 0); break;
      case 'satellites': record.satellites = Number(x); break;
      case 'hdop': record.hdop = Number(x); break;
      case 'power': a[Attr.power] = volts(Number(x), SUPPLY); break;
      case 'battery': a[Attr.battery] = volts(Number(x), BATTERY); break;
      case 'obd': obd(x, a); break;
      case 'dtcs': if (x.length > 3) a[Attr.dtcs] = x.slice(2, -1).split('|').join(' '); break;
      default: {
        const alarm = FLAG_ALARMS[k];
        if (alarm && on) a[Attr.alarm] = alarm;
      }
    }
  });
  // the 37-value layout gives the direction as one of eight sectors (1 = north, 2 = north-east, ...)
  if (record.course === undefined && courseBits >= 1 && courseBits <= 8) record.course = (courseBits - 1) * 45;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  const m = HEAD.exec(s);
  if (!m) {
    const serial = /^\$\$[^,]*,(\d+),/.exec(s);
    if (serial) return { deviceId: serial[1] }; // a settings report or a garbled one
    throw new DecodeError('aquila: not a report');
  }
  const [, client, serial, event, lat, lng, yy, mo, dd, hh, mi, ss, validity, rest] = m;
  const v = rest.split(',');
  const a: Record<string, AttrValue> = { [Attr.event]: Number(event), model: client.split('_')[1] ?? client };
  const record: DeviceRecord = {
    time: utc(Number(yy), Number(mo), Number(dd), Number(hh), Number(mi), Number(ss)),
    valid: validity === 'A',
    lat: Number(lat),
    lng: Number(lng),
    attributes: a,
  };
  if (Math.abs(record.lat!) > 90 || Math.abs(record.lng!) > 180) throw new DecodeError('aquila: coordinates out of range');
  const layout = LAYOUTS[v.length];
  if (layout) {
    // values that cannot be (a negative odometer): a garbled report
    if (!layout.every((k, i) => valueOk(k, v[i]))) return { deviceId: serial };
    periodic(layout, v, record);
  } else if (v.length === 2) {
    a.sensorId = Number(v[0]);
    a.sensorData = v[1];
  } else {
    a.data = rest;
  }
  return { deviceId: serial, records: [record] };
}

export const protocol: Protocol = {
  name: 'aquila',
  defaultPort: 5089,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
  carriesText: false,
};
