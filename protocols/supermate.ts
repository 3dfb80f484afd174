/**
 * Supermate text protocol, messages cut at `#`:
 *   `<header>:<imei>:<x>:*,<command id>,<command 2 chars>,<A|V>,<yymmdd hex>,<hhmmss hex>,<lat: sign digit (8 = south)
 *    + 7 hex of 1/600000 degree>,<lon: same>,<speed hex / 100>,<course hex / 100>,<status 12 hex>,<signal hex>,
 *    <power>,<oil hex 4>,<odometer hex>...`
 * Every report is answered `#1:<imei>:1:*,00000000,UP,<yymmdd hex>,<hhmmss hex>#` with the server's UTC time.
 */
import { Attr } from './attributes.ts';
import { delimitedFramer, latin1, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const X = '[0-9A-Fa-f]';
const REPORT = new RegExp(
  String.raw`^\d+:(\d+):\d+:\*,(\d+),([^,]{2}),([AV]),(${X}{2})(${X}{2})(${X}{2}),(${X}{2})(${X}{2})(${X}{2}),(${X})(${X}{7}),(${X})(${X}{7}),(${X}{4}),(${X}{4}),(${X}{12}),(${X}+),(\d+),(${X}{4}),(${X}+)?`,
);
const hex = (v: string) => parseInt(v, 16);
const hex2 = (n: number) => n.toString(16).padStart(2, '0');

function reply(imei: string, now: number): Buffer {
  const d = new Date(now);
  const date = [d.getUTCFullYear() % 100, d.getUTCMonth() + 1, d.getUTCDate()].map(hex2).join('');
  const time = [d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()].map(hex2).join('');
  return latin1(`#1:${imei}:1:*,00000000,UP,${date},${time}#`);
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('supermate: not a report');
  const [, imei, commandId, command, valid, yy, mo, dd, hh, mi, ss, latSign, lat, lngSign, lng, speed, course, status, signal, power, oil, odometer] = m;
  const rec = {
    time: utc(hex(yy), hex(mo), hex(dd), hex(hh), hex(mi), hex(ss)),
    valid: valid === 'A',
    lat: (hex(latSign) === 8 ? -1 : 1) * (hex(lat) / 600000),
    lng: (hex(lngSign) === 8 ? -1 : 1) * (hex(lng) / 600000),
    speed: hex(speed) / 100,
    course: (hex(course) / 100) % 360,
    attributes: {
      commandId,
      command,
      [Attr.status]: status,
      signal: hex(signal),
      [Attr.power]: Number(power),
      oil: hex(oil),
      [Attr.odometer]: odometer ? hex(odometer) : 0,
    },
  };
  if (rec.lat < -90 || rec.lat > 90 || rec.lng < -180 || rec.lng > 180) throw new DecodeError('supermate: coordinates out of range');
  return { deviceId: imei, records: [rec], reply: reply(imei, ctx.now) };
}

export const protocol: Protocol = {
  name: 'supermate',
  defaultPort: 5108,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('supermate', [0x23], MAX_FRAME),
  decode,
  commands: [],
};
