/**
 * Box Tracking text protocol, lines ending with CR:
 *   `H,BT,<id>,<time>,...`  hello with the device id
 *   `L,<yymmddhhmmss>,G,<lat>,<lon>,<km/h>,<course>,<trip km>,<event>,<status>[;<key>,<value>...]`
 *                           log entry: status bit 0 ignition, 1 moving, 2 no GNSS fix
 *   `E,<n>`                 end of a batch of n entries -> `A,<n>\r`
 * Trailing `key,value` items (`A` acceleration, `D` deceleration, `T0` temperature, `I` input, `END`
 * journey summary) are kept under their lower-cased key.
 */
import { Attr } from './attributes.ts';
import { delimitedFramer, latin1, utc } from './text.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const LOG = /^L,(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),G,(-?\d+\.\d+),(-?\d+\.\d+),(\d+\.?\d*),(\d+\.?\d*),(\d+\.?\d*),(\d+),(\d+)(?:;(.+))?$/;

function decodeLog(s: string): DeviceRecord | undefined {
  const m = LOG.exec(s);
  if (!m) return undefined;
  const [, yy, mo, dd, hh, mi, ss, latS, lngS, speed, course, trip, event, statusS, extra] = m;
  const [lat, lng] = [Number(latS), Number(lngS)];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('box: coordinates out of range');
  const status = Number(statusS);
  const a: Record<string, AttrValue> = {
    tripOdometer: Number(trip) * 1000,
    [Attr.event]: Number(event),
    [Attr.ignition]: (status & 1) !== 0,
    [Attr.motion]: (status & 2) !== 0,
    [Attr.status]: status,
  };
  for (const item of (extra ?? '').split(';').slice(0, 32)) {
    const at = item.indexOf(',');
    const key = item.slice(0, at).toLowerCase();
    if (!/^[a-z][a-z0-9]{0,15}$/.test(key) || key in a) continue; // never overwrite a decoded value
    const value = item.slice(at + 1);
    a[key] = /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  return {
    time: utc(Number(yy), Number(mo), Number(dd), Number(hh), Number(mi), Number(ss)),
    lat,
    lng,
    speed: Number(speed),
    course: Number(course),
    valid: (status & 4) === 0,
    attributes: a,
  };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  if (s.startsWith('H,')) {
    const from = s.indexOf(',', 2) + 1;
    const to = s.indexOf(',', from);
    const id = from > 0 ? s.slice(from, to < 0 ? undefined : to) : '';
    return id ? { deviceId: id } : {};
  }
  if (s.startsWith('E,')) return /^\d{1,10}$/.test(s.slice(2)) ? { reply: latin1(`A,${s.slice(2)}\r`) } : {};
  if (s.startsWith('L,')) {
    const rec = decodeLog(s);
    return rec ? { records: [rec] } : {};
  }
  return {};
}

export const protocol: Protocol = {
  name: 'box',
  defaultPort: 5065,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('box', [0x0d, 0x0a], MAX_FRAME),
  decode,
  commands: [],
};
