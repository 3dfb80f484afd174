/**
 * Pretrace text protocol, messages `(...)` cut at `)`:
 *   `(<imei 15>U<type 3><gps type><A|V><yymmddhhmmss><ddmm.mmmm><N|S><dddmm.mmmm><E|W><km/h 3><course 3><altitude hex 3>
 *    <odometer hex 8><satellites hex 1><hdop 2><gsm 2><state 8>,&<items>^<checksum hex 2>`
 * Items (comma separated): `P1<nn>%` battery %, `P1<hex>` battery V x 100, `P<n><hex>` power V x 100,
 * `T1<hex>` device temperature x 4, `T<n><hex>` temperature n x 4, `F<n><hex>` fuel n x 100, `R<x><id>` driver.
 * Commands: `(<imei><data>^<XOR of imei and data, hex>)`. The devices expect no answer to reports.
 */
import { Attr, indexed } from './attributes.ts';
import { delimitedFramer, latin1, nmeaCoordinate, utc } from './text.ts';
import { DecodeError, type AttrValue, type Command, type DecodeContext, type DecodeResult, type EncodeContext, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const X = '[0-9A-Fa-f]';
const REPORT = new RegExp(
  String.raw`^\((\d{15})U\d{3}\d([AV])(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d{4}\.\d{4})([NS])(\d{5}\.\d{4})([EW])(\d{3})(\d{3})(${X}{3})(${X}{8})(${X})(\d\d)(\d\d)(.{8}),&(.+)?\^${X}{2}`,
);
const HEX = /^[0-9A-Fa-f]+$/;

function item(value: string, a: Record<string, AttrValue>): void {
  const hex = (from: number) => (HEX.test(value.slice(from)) ? parseInt(value.slice(from), 16) : undefined);
  const n = value.charCodeAt(1) - 48;
  switch (value[0]) {
    case 'P':
      if (value[1] === '1' && value[4] === '%') a[Attr.batteryLevel] = Number(value.slice(2, 4));
      else if (hex(2) !== undefined) a[value[1] === '1' ? Attr.battery : Attr.power] = hex(2)! / 100;
      break;
    case 'T':
      if (hex(2) !== undefined) a[value[1] === '1' ? Attr.deviceTemp : indexed.temp(n)] = hex(2)! * 0.25;
      break;
    case 'F':
      if (hex(2) !== undefined && n >= 0 && n <= 9) a[indexed.fuel(n)] = hex(2)! / 100;
      break;
    case 'R':
      if (value.length > 3) a[Attr.driverUniqueId] = value.slice(3);
      break;
  }
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('pretrace: not a report');
  const [, imei, valid, yy, mo, dd, hh, mi, ss, lat, ns, lng, ew, speed, course, altitude, odometer, sats, hdop, gsm, , items] = m;
  const a: Record<string, AttrValue> = { [Attr.odometer]: parseInt(odometer, 16), [Attr.rssi]: Number(gsm) };
  for (const v of items?.split(',') ?? []) if (v) item(v, a);
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: valid === 'A',
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew),
    speed: Number(speed),
    course: Number(course) % 360,
    altitude: parseInt(altitude, 16),
    satellites: parseInt(sats, 16),
    hdop: Number(hdop),
    attributes: a,
  };
  return { deviceId: imei, records: [rec] };
}

function frame(imei: string, data: string): Buffer {
  const content = imei + data;
  let x = 0;
  for (let i = 0; i < content.length; i++) x ^= content.charCodeAt(i) & 0xff;
  return latin1(`(${content}^${x.toString(16).toUpperCase().padStart(2, '0')})`);
}

const COMMANDS: Record<string, (c: Command) => string> = {
  custom: (c) => String(c.attributes.data ?? ''),
  positionPeriodic: (c) => {
    const f = Math.trunc(Number(c.attributes.frequency ?? 0));
    return `D221${f},${f},,`;
  },
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`pretrace: unsupported command ${command.type}`);
  return frame(ctx.deviceId, build(command));
}

export const protocol: Protocol = {
  name: 'pretrace',
  defaultPort: 5133,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('pretrace', [0x29], MAX_FRAME),
  decode,
  commands: Object.keys(COMMANDS),
  encode,
};
