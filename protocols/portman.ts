/**
 * Portman text protocol, one message a line:
 *   standard `$PTMLA,` or `%%` + `<id>,<A|B|C|L>,<yymmddhhmmss>,<N|S><ddmm.mmmm><E|W><dddmm.mmmm>,<km/h>,<course>,
 *     <NA|C<temp>>,<status hex 8>,<NA|F<fuel x 10>|<card id>>,<event>,<satellites>,<odometer km>,<rssi>[,G<fuel>]`
 *   extended `$EXT,<id>,<validity>,<time>,<position>,<km/h>,<course>,<NA|C<temp>>,<NA|F<fuel>>,<satellites>,<rssi>,
 *     <odometer km>,<NA|card id>,<status hex 8>,<event>`
 * `L` is a not-valid position. Events 253/254 are ignition on/off. Commands: `&&<imei>,XA5` (stop) / `XA6` (resume).
 * The devices expect no answer to reports.
 */
import { Attr, indexed } from './attributes.ts';
import { delimitedFramer, latin1, utc } from './text.ts';
import { DecodeError, type AttrValue, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const HEAD = String.raw`([^,]+),([ABCL]),(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),([NS])(\d\d)(\d\d\.\d+)([EW])(\d{2,3})(\d\d\.\d+),(\d+),(\d+),(?:NA|C(-?\d+)),`;
const STANDARD = new RegExp(String.raw`^(?:\$PTMLA,|%%)${HEAD}([0-9A-Fa-f]{8}),(?:NA|F(\d+)|(\d+)),(\d+),(\d+),(\d+\.\d+),(\d+)(?:,G(\d+))?`);
const EXTENDED = new RegExp(String.raw`^\$EXT,${HEAD}(?:NA|F(\d+)),(\d+),(\d+),(\d+\.\d+),(?:NA|(\d+)),([0-9A-Fa-f]{8}),(\d+)`);

function position(m: RegExpExecArray): DeviceRecord {
  const [, , validity, yy, mo, dd, hh, mi, ss, ns, latD, latM, ew, lngD, lngM, speed, course, temp] = m;
  const lat = (Number(latD) + Number(latM) / 60) * (ns === 'S' ? -1 : 1);
  const lng = (Number(lngD) + Number(lngM) / 60) * (ew === 'W' ? -1 : 1);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('portman: coordinates out of range');
  const a: Record<string, AttrValue> = {};
  if (temp !== undefined) a[indexed.temp(1)] = Number(temp);
  return { time: utc(+yy, +mo, +dd, +hh, +mi, +ss), valid: validity !== 'L', lat, lng, speed: Number(speed), course: Number(course) % 360, attributes: a };
}

function event(a: Record<string, AttrValue>, value: string): void {
  const e = Number(value);
  a[Attr.event] = e;
  if (e === 253) a[Attr.ignition] = true;
  if (e === 254) a[Attr.ignition] = false;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  let m = STANDARD.exec(s);
  if (m) {
    const rec = position(m);
    const [status, fuel, card, ev, sats, odometer, rssi, fuel2] = m.slice(18);
    const a = rec.attributes;
    a[Attr.status] = parseInt(status, 16);
    if (fuel !== undefined) a[Attr.fuel] = Number(fuel) / 10;
    if (card !== undefined) a[Attr.driverUniqueId] = card;
    event(a, ev);
    rec.satellites = Number(sats);
    a[Attr.odometer] = Number(odometer) * 1000;
    a[Attr.rssi] = Number(rssi);
    if (fuel2 !== undefined) a[Attr.fuel] = Number(fuel2);
    return { deviceId: m[1], records: [rec] };
  }
  m = EXTENDED.exec(s);
  if (!m) throw new DecodeError('portman: not a report');
  const rec = position(m);
  const [fuel, sats, rssi, odometer, card, status, ev] = m.slice(18);
  const a = rec.attributes;
  if (fuel !== undefined) a[Attr.fuel] = Number(fuel);
  rec.satellites = Number(sats);
  a[Attr.rssi] = Number(rssi);
  a[Attr.odometer] = Number(odometer) * 1000;
  if (card !== undefined) a[Attr.driverUniqueId] = card;
  a[Attr.status] = parseInt(status, 16);
  event(a, ev);
  return { deviceId: m[1], records: [rec] };
}

const COMMANDS: Record<string, string> = { engineStop: 'XA5', engineResume: 'XA6' };

function encode(command: Command, ctx: EncodeContext): Buffer {
  const code = COMMANDS[command.type];
  if (!code) throw new Error(`portman: unsupported command ${command.type}`);
  return latin1(`&&${ctx.deviceId},${code}\r\n`);
}

export const protocol: Protocol = {
  name: 'portman',
  defaultPort: 5211,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('portman', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: Object.keys(COMMANDS),
  encode,
};
