/**
 * Aquila (aQuila vehicle trackers) comma-separated text reports:
 *   `$$<client>_<model>,<serial>,<event>,<lat>,<lng>,<yymmddhhmmss>,<A|V>,<values...>,*<xor>`
 * with signed decimal degrees. The values that follow depend on the firmware, told apart by count:
 *   37  gsm, km/h, odometer, course, counter, 32 status flags
 *   43  gsm, km/h, odometer, course, satellites, hdop, 35 status flags, supply, battery
 *   51  the 37 values, supply, battery, 6 flags, `P(pid:response|...)` OBD values, `D(code|...)` fault
 *       codes, 4 accelerometer values
 * Other events carry other values: an event 15 settings report yields nothing, other events
 * (event 20 sends two values) their fix and the values as `data`. The checksum (XOR of the bytes between `$$` and `*`) is not trusted:
 * devices are seen sending wrong ones. Devices expect no answer (none is documented).
 */
import { Attr, indexed } from './attributes.ts';
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
const INT = /^\d+$/;
const FLAGS = /^[01]$/;

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
  const n = v.length;
  const a: Record<string, AttrValue> = { [Attr.event]: Number(event) };
  const record: DeviceRecord = {
    time: utc(Number(yy), Number(mo), Number(dd), Number(hh), Number(mi), Number(ss)),
    valid: validity === 'A',
    lat: Number(lat),
    lng: Number(lng),
    attributes: a,
  };
  if (Math.abs(record.lat!) > 90 || Math.abs(record.lng!) > 180) throw new DecodeError('aquila: coordinates out of range');
  const head = (count: number) => v.slice(0, count).every((x) => INT.test(x) || /^\d+\.\d+$/.test(x));
  const flags = (from: number, count: number) => v.slice(from, from + count);
  let status: string[] | undefined;
  if ((n === 37 || n === 51) && head(5)) {
    status = flags(5, 32);
    a.counter = Number(v[4]);
  } else if (n === 43 && head(6)) {
    status = flags(6, 35);
    record.satellites = Number(v[4]);
    record.hdop = Number(v[5]);
    a[Attr.power] = volts(Number(v[41]), SUPPLY);
    a[Attr.battery] = volts(Number(v[42]), BATTERY);
  } else if (n === 37 || n === 43 || n === 51) {
    return { deviceId: serial }; // the layout of a periodic report with values that cannot be (a negative odometer)
  } else {
    // an event with values of its own (event 20 sends two): the fix, and the values as sent
    a.data = rest;
    return { deviceId: serial, records: [record] };
  }
  if (!status.every((f) => FLAGS.test(f))) return { deviceId: serial };
  a[Attr.rssi] = Number(v[0]);
  record.speed = Number(v[1]);
  a[Attr.odometer] = Number(v[2]); // metres: it grows by 2 km in half an hour at 12 km/h
  const course = Number(v[3]);
  if (course <= 360) record.course = course;
  a[Attr.status] = status.join('');
  if (n === 51) {
    if (INT.test(v[37])) a[Attr.power] = volts(Number(v[37]), SUPPLY);
    if (INT.test(v[38])) a[Attr.battery] = volts(Number(v[38]), BATTERY);
    v.slice(39, 45).forEach((f, i) => FLAGS.test(f) && (a[indexed.in(i + 1)] = f === '1'));
    if (/^P\(.*\)$/.test(v[45])) obd(v[45], a);
    const dtcs = /^D\((.*)\)$/.exec(v[46]);
    if (dtcs?.[1]) a[Attr.dtcs] = dtcs[1].split('|').join(' ');
  }
  a.model = client.split('_')[1] ?? client;
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
