/**
 * TMG (Indian vehicle trackers) comma-separated text reports: `$<type>,...` ending with a line break
 * (older firmware) or `,#` (newer firmware). Two layouts, told apart by the `L`/`H` (live / history)
 * field the newer one puts before the IMEI:
 *   older  `$loc,<imei>,ddmmyyyy,hhmmss,<fix>,ddmm.mmmm,N,dddmm.mmmm,E,<km/h>,<course>,<cell id>,
 *           <gsm signal>,<satellites>,<battery %>,<ignition>,<inputs L/H>,<tamper N/T>,<outputs L/H>,<adc1>,
 *           <adc2>,<vehicle id>,<odometer>,<version>`
 *   newer  `$nor,L,<imei>,ddmmyyyy,hhmmss,<fix>,lat,N,lng,E,<km/h>,<course>,<altitude>,<hdop>,<satellites>,
 *           <satellites in view>,<operator>,<gsm signal>,<cell id>,<ignition>,<battery V>,<supply V>,
 *           <inputs 0/1>,<outputs 0/1>,<tamper 0/1>,<adc1>,<adc2>,<trip>,<version>,[<rfid>],#`
 * The type names the event: nor/loc periodic, bak stored, ion/iof ignition on/off, rmv main power
 * removed, ebl low external battery, ibl low internal battery, rid RFID card, rnc reconnect, tmp/smt/btt
 * tamper.
 * The devices expect no answer (none is documented).
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { nmeaCoordinate, num, utc } from './text.ts';
import { DecodeError, FrameError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;

const isType = (b: Buffer, i: number) =>
  b[i] === 0x24 && b[i + 1] >= 0x61 && b[i + 1] <= 0x7a && b[i + 2] >= 0x61 && b[i + 2] <= 0x7a && b[i + 3] >= 0x61 && b[i + 3] <= 0x7a && b[i + 4] === 0x2c;

/** A report runs from `$xxx,` to a line break or `#` (kept). Bytes before a report start are skipped. */
function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start + 5 <= buffer.length && !isType(buffer, start)) start++;
      if (start + 5 > buffer.length) {
        if (buffer.length > MAX_FRAME) throw new FrameError('tmg: no report start');
        return null;
      }
      for (let i = start + 5; i < buffer.length; i++) {
        const c = buffer[i];
        if (c === 0x0a || c === 0x0d) return { frame: buffer.subarray(start, i), consumed: i + 1 };
        if (c === 0x23) return { frame: buffer.subarray(start, i + 1), consumed: i + 1 };
      }
      if (buffer.length - start > MAX_FRAME) throw new FrameError('tmg: report too long');
      return null;
    },
  };
}

const HEAD = /^\$([a-z]{3}),(?:([LH]),)?(\d{15}),/;
const FIX = '(\\d\\d)(\\d\\d)(\\d{4}),(\\d\\d)(\\d\\d)(\\d\\d),(\\d),(\\d{4}\\.\\d+),([NS]),(\\d{5}\\.\\d+),([EW]),(\\d+(?:\\.\\d+)?),(\\d+(?:\\.\\d+)?),';
const OLD = new RegExp(
  `^${FIX}(\\d+),(\\d+),(\\d+),(-?\\d+),([01]),([LH]+),([NT]+),([LH]+),(\\d+(?:\\.\\d+)?),(\\d+(?:\\.\\d+)?),([^,]*),(\\d*),([^,]*)`,
);
const NEW = new RegExp(
  `^${FIX}(-?\\d+(?:\\.\\d+)?),(\\d+(?:\\.\\d+)?),(\\d+),(\\d+),([^,]*),(\\d+),([^,]*),([01]),(\\d+(?:\\.\\d+)?),(\\d+(?:\\.\\d+)?),([01]+),([01]+),([01]+),([\\d.]+)[^,]*,([\\d.]+)[^,]*,(\\d+(?:\\.\\d+)?),([^,]*),(?:([^,#]*),)?`,
);

const EVENTS: Record<string, Record<string, AttrValue>> = {
  ion: { [Attr.ignition]: true },
  iof: { [Attr.ignition]: false },
  rmv: { [Attr.alarm]: Alarm.powerCut },
  ebl: { [Attr.alarm]: Alarm.lowPower },
  ibl: { [Attr.alarm]: Alarm.lowBattery },
  tmp: { [Attr.alarm]: Alarm.tampering },
  smt: { [Attr.alarm]: Alarm.tampering },
  btt: { [Attr.alarm]: Alarm.tampering },
  bak: { [Attr.archive]: true },
};

/** `00000010` read as a binary number (last character = input 1). */
const mask = (s: string): number => parseInt(s.slice(-16), 2);

function fix(m: RegExpExecArray): DeviceRecord {
  const [, dd, mo, yyyy, hh, mi, ss, status, lat, ns, lng, ew, speed, course] = m;
  const c = Number(course);
  return {
    time: utc(Number(yyyy), Number(mo), Number(dd), Number(hh), Number(mi), Number(ss)),
    // older firmware writes 1 for a fix, newer 1..4 for the fix mode (0: none)
    valid: status !== '0',
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew),
    speed: Number(speed),
    ...(c <= 360 ? { course: c } : {}),
    attributes: {},
  };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  const head = HEAD.exec(s);
  if (!head) {
    if (/^\$[a-z]{3},/.test(s)) return {}; // a report too garbled to name its device
    throw new DecodeError('tmg: not a report');
  }
  const [, type, history, imei] = head;
  const body = s.slice(head[0].length);
  let record: DeviceRecord;
  if (history) {
    const m = NEW.exec(body);
    if (!m) return { deviceId: imei };
    record = fix(m);
    const [alt, hdop, sats, , operator, rssi, cid, ignition, battery, power, input, output, tamper, adc1, adc2, trip, version, rfid] = m.slice(14);
    const a = record.attributes;
    record.altitude = Number(alt);
    record.hdop = Number(hdop);
    record.satellites = Number(sats);
    if (operator && operator !== 'N.A') a[Attr.operator] = operator;
    a[Attr.rssi] = Number(rssi);
    if (/^[0-9A-Fa-f]+$/.test(cid)) a.cellId = cid;
    a[Attr.ignition] = ignition === '1';
    a[Attr.battery] = Number(battery);
    a[Attr.power] = Number(power);
    a[Attr.input] = mask(input);
    a[Attr.output] = mask(output);
    a.tamper = tamper;
    a[indexed.adc(1)] = Number(adc1);
    a[indexed.adc(2)] = Number(adc2);
    a[Attr.distance] = Number(trip) * 1000; // trip meter, km
    if (version) a.versionFw = version;
    if (rfid && rfid !== 'NA') a[Attr.driverUniqueId] = rfid;
    if (history === 'H') a[Attr.archive] = true;
  } else {
    const m = OLD.exec(body);
    if (!m) return { deviceId: imei };
    record = fix(m);
    const [cid, rssi, sats, level, ignition, input, tamper, output, adc1, adc2, vehicle, odometer, version] = m.slice(14);
    const a = record.attributes;
    record.satellites = Number(sats);
    a.cellId = cid;
    a[Attr.rssi] = Number(rssi);
    a[Attr.ignition] = ignition === '1';
    // `L`/`H` per line, first character = input (output) 1
    [...input].forEach((c, i) => (a[indexed.in(i + 1)] = c === 'H'));
    [...output].forEach((c, i) => (a[indexed.out(i + 1)] = c === 'H'));
    a.tamper = tamper;
    const percent = Number(level);
    if (percent >= 0 && percent <= 100) a[Attr.batteryLevel] = percent;
    if (odometer) a.mileage = Number(odometer); // unit not known
    a[indexed.adc(1)] = num(adc1) ?? 0;
    a[indexed.adc(2)] = num(adc2) ?? 0;
    if (vehicle) a.vehicleId = vehicle;
    if (version) a.versionFw = version;
  }
  record.attributes[Attr.event] = type;
  Object.assign(record.attributes, EVENTS[type]);
  return { deviceId: imei, records: [record] };
}

export const protocol: Protocol = {
  name: 'tmg',
  defaultPort: 5132,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
  carriesText: false,
};
