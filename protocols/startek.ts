/**
 * Startek protocol (Startek trackers): text frames `&&<index><length>,<imei>,<type>,<content><XX>\r\n`.
 *
 *   index: one character; length: the characters after the comma up to the end; XX: a checksum.
 *   type 000 position: `<event>,<event data>,yymmddhhmmss,A|V,<lat>,<lng>,<sats>,<hdop>,<km/h>,
 *   <course>,<altitude>,<odometer>,<mcc>|<mnc>|<lac>|<cid>,<rssi>,<status>,<inputs>,<outputs>,
 *   <power>|<battery>[|<adc>...][,<extended>,<fuel>,<temperatures>,<OBD>,<driver id>,<hours>]`
 *   (hex where the device sends hex); type 710 CAN/J1939 serial data (`T1`/`T2` lines); any other
 *   type is a command answer (`OK`, ...).
 * The trackers expect no answer to reports (none is sent). Commands: `$$:<length>,<imei>,<text><XX>\r\n`
 * where XX is the byte sum of everything before it.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { DecodeError, FrameError, type AttrValue, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 4096;

/** `&&` + index + decimal length + `,`: the frame ends `length` characters after the comma, plus 3. */
function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 10) return null;
      if (buffer[0] !== 0x26 || buffer[1] !== 0x26) throw new FrameError('startek: no && start');
      const comma = buffer.indexOf(0x2c, 3);
      if (comma < 0) {
        if (buffer.length > 16) throw new FrameError('startek: no length');
        return null;
      }
      const digits = buffer.toString('latin1', 3, comma);
      if (!/^\d{1,5}$/.test(digits)) throw new FrameError('startek: bad length');
      const total = comma + 4 + Number(digits);
      if (total > MAX_FRAME) throw new FrameError('startek: frame too long');
      return buffer.length >= total ? { frame: buffer.subarray(0, total), consumed: total } : null;
    },
  };
}

const FRAME = /^&&[\s\S]\d+,(\d+),([0-9A-Fa-f]{3}),([\s\S]+)[0-9A-Fa-f]{2}\r\n$/;
const POSITION = new RegExp(
  '^(\\d+),([^,]+)?,(\\d\\d)(\\d\\d)(\\d\\d)(\\d\\d)(\\d\\d)(\\d\\d),([AV]),(-?\\d+\\.\\d+),(-?\\d+\\.\\d+),(\\d+),(\\d+\\.\\d+),(\\d+),(\\d+),(-?\\d+),(\\d+),' +
    '(\\d+)\\|(\\d+)\\|([0-9A-Fa-f]+)\\|([0-9A-Fa-f]+),(\\d+),([0-9A-Fa-f]+),([0-9A-Fa-f]+),([0-9A-Fa-f]+),([0-9A-Fa-f]+)\\|([0-9A-Fa-f]+)((?:\\|[^,|]*)*)' +
    '(?:,\\d+,([^,]+)?(?:,([^,]+)?(?:,(?:(\\d+)?\\|(\\d+)?\\|(\\d+)?\\|(\\d+)?\\|(\\d+)?\\|(\\d+)?\\|(\\d+)?\\|(\\d+)?\\|(?:(\\d+)[%L])?)?(?:,([^,]{20,}))?(?:,(\\d+))?)?)?)?',
);

const ALARMS: Record<number, string> = { 1: Alarm.sos, 5: Alarm.door, 6: Alarm.door, 17: Alarm.lowPower, 18: Alarm.powerCut, 19: Alarm.powerRestored, 39: Alarm.hardAcceleration, 40: Alarm.hardBraking, 41: Alarm.hardCornering };

interface Session {
  last?: LastFix;
}

/** `<2-digit index><hex value>` entries separated by `|` (fuel: 0.1 units; temperatures: sign bit 15, 0.1 °C). */
function indexedHex(s: string, each: (index: number, value: number) => void): void {
  for (const entry of s.split('|').slice(0, 16)) {
    const m = /^(\d\d)([0-9A-Fa-f]{1,8})$/.exec(entry);
    if (m) each(Number(m[1]), parseInt(m[2], 16));
  }
}

function decodePosition(content: string, ctx: DecodeContext): DeviceRecord | undefined {
  const m = POSITION.exec(content);
  if (!m) return undefined;
  const g = m.slice(1);
  const [event, eventData, yy, mo, dd, hh, mi, ss, validity, lat, lng, sats, hdop, speed, course, altitude, odometer, mcc, mnc, lac, cid, rssi, status, inputs, outputs, power, battery, adc] = g;
  const [fuel, temps, rpm, load, maf, pressure, airTemp, throttle, coolant, instant, fuelLevel, driver, hours] = g.slice(28);
  const rec: DeviceRecord = {
    time: Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss)),
    valid: validity === 'A',
    lat: Number(lat),
    lng: Number(lng),
    satellites: Number(sats),
    hdop: Number(hdop),
    speed: Number(speed),
    course: Number(course),
    altitude: Number(altitude),
    cells: [{ mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16), rssi: Number(rssi) }],
    attributes: {},
  };
  if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180 || rec.course! > 360) throw new DecodeError('startek: position out of range');
  const a = rec.attributes;
  const ev = Number(event);
  a[Attr.event] = ev;
  if (ev === 53 && eventData) a[Attr.driverUniqueId] = eventData;
  else if (ALARMS[ev]) a[Attr.alarm] = ALARMS[ev];
  a[Attr.odometer] = Number(odometer);
  a[Attr.status] = parseInt(status, 16);
  const input = parseInt(inputs, 16);
  Object.assign(a, { [Attr.ignition]: (input & 2) !== 0, [Attr.door]: (input & 4) !== 0, [Attr.input]: input, [Attr.output]: parseInt(outputs, 16) });
  a[Attr.power] = parseInt(power, 16) / 100;
  a[Attr.battery] = parseInt(battery, 16) / 100;
  // After power|battery: `|adc2|adc3...` in hex hundredths of a volt.
  adc
    ?.split('|')
    .slice(1, 9)
    .forEach((v, i) => /^[0-9A-Fa-f]+$/.test(v) && (a[indexed.adc(i + 2)] = parseInt(v, 16) / 100));
  if (fuel) indexedHex(fuel, (i, v) => (a[indexed.fuel(i)] = v / 10));
  if (temps) indexedHex(temps, (i, v) => (a[indexed.temp(i)] = ((v & 0x8000 ? -1 : 1) * (v & 0x7fff)) / 10));
  const set = (key: string, v: string | undefined, f = (x: number) => x) => v !== undefined && (a[key] = f(Number(v)));
  set(Attr.rpm, rpm);
  set(Attr.engineLoad, load);
  set('airFlow', maf);
  set('airPressure', pressure);
  set('airTemp', airTemp, (x) => x - 40);
  set(Attr.throttle, throttle);
  set(Attr.coolantTemp, coolant, (x) => x - 40);
  set(Attr.fuelConsumption, instant, (x) => x / 10);
  set(Attr.fuel, fuelLevel);
  if (driver) a[Attr.driverUniqueId] = driver;
  set(Attr.hours, hours, (x) => x * 1000);
  rememberFix(ctx.session as Session, rec);
  return rec;
}

/** CAN/J1939 lines: `T1,...` (engine values) and `T2,...` (totals), fields by position. */
function decodeSerial(content: string, ctx: DecodeContext): DeviceRecord {
  const a: Record<string, AttrValue> = {};
  for (const line of content.split('\r\n').slice(0, 16)) {
    const v = line.split(',');
    const num = (i: number, key: string, f = (x: number) => x) => {
      const x = Number(v[i]);
      if (v[i] !== undefined && v[i] !== '' && Number.isFinite(x)) a[key] = f(x);
    };
    if (v[0] === 'T1') {
      num(2, Attr.rpm);
      num(4, Attr.fuel);
      num(10, Attr.coolantTemp);
      num(12, 'torque');
      num(14, Attr.power);
      num(16, 'oilTemp');
      num(18, Attr.throttle);
      num(23, 'oilPressure');
      const ignition = Number(v[26]);
      if (ignition === 0 || ignition === 1) a[Attr.ignition] = ignition === 1;
      num(28, 'catalystLevel');
    } else if (v[0] === 'T2') {
      num(1, Attr.odometer, (x) => x * 1000);
      num(17, Attr.hours, (x) => x * 3_600_000);
      num(19, Attr.fuelConsumption);
      num(21, Attr.fuelUsed);
    }
  }
  return withLastFix({ attributes: a }, ctx.session as Session);
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const m = FRAME.exec(frame.toString('latin1'));
  if (!m) return {};
  const [, imei, type, content] = m;
  let rec: DeviceRecord | undefined;
  if (type === '000') rec = decodePosition(content, ctx);
  else if (type === '710') rec = decodeSerial(content, ctx);
  else rec = withLastFix({ attributes: { type, [Attr.result]: content } }, ctx.session as Session);
  return { deviceId: imei, records: rec ? [rec] : [] };
}

/** `$$:<length>,<imei>,<payload><XX>\r\n`; length counts `,<imei>,<payload>` plus one, XX is the byte sum. */
function sentence(imei: string, payload: string): Buffer {
  const s = `$$:${1 + imei.length + 1 + payload.length},${imei},${payload}`;
  let sum = 0;
  for (const b of Buffer.from(s, 'latin1')) sum = (sum + b) & 0xff;
  return Buffer.from(`${s}${sum.toString(16).toUpperCase().padStart(2, '0')}\r\n`, 'latin1');
}

const COMMANDS: Record<string, (c: Command) => string> = {
  custom: (c) => String(c.attributes.data ?? ''),
  outputControl: (c) => `900,${c.attributes.index ?? 1},${c.attributes.data ?? 0}`,
  engineStop: () => '900,1,1',
  engineResume: () => '900,1,0',
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`startek: unsupported command ${command.type}`);
  return sentence(ctx.deviceId, build(command));
}

export const protocol: Protocol = {
  name: 'startek',
  defaultPort: 5222,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  carriesText: false,
  encode,
};
