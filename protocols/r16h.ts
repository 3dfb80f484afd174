/**
 * R16H text protocol (strap trackers), messages cut at `$`:
 *   `@LINK,<imei>` login
 *   `@GPSD,<imei>,<R real time|S stored>,<yyyymmdd>,<hhmmss>,<lat>,<N|S>,<lon>,<E|W>,<km/h>,<course>,<altitude>,
 *    <battery %>,<L locked|R released strap>,<alarm: SOS, LBT, ULK or empty>`
 *   `@LBSD,<imei>,<R|S>,<yyyymmdd>,<hhmmss>,<mcc>-<mnc>-<lac hex>-<cid hex>:<rssi>,,,<battery %>,<L|R>,<alarm>`
 * The devices expect no answer.
 */
import { Alarm, Attr } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const HEAD = String.raw`(\d+),([RS]),(\d{4})(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),`;
const STATUS = String.raw`(\d+),([LR]),(\w*)`;
const GPSD = new RegExp(String.raw`^@GPSD,${HEAD}(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),(\d+),(\d+),(-?\d+),${STATUS}`);
const LBSD = new RegExp(String.raw`^@LBSD,${HEAD}(\d+)-(\d+)-([0-9a-fA-F]+)-([0-9a-fA-F]+):(-?\d+),,,${STATUS}`);
const ALARMS: Record<string, string> = { SOS: Alarm.sos, LBT: Alarm.lowBattery, ULK: Alarm.removing };

function base(m: RegExpExecArray, statusAt: number): DeviceRecord {
  const [, , stored, yy, mo, dd, hh, mi, ss] = m;
  const [battery, strap, alarm] = m.slice(statusAt, statusAt + 3);
  const a: Record<string, AttrValue> = { [Attr.batteryLevel]: Number(battery), strapLocked: strap === 'L' };
  if (stored === 'S') a[Attr.archive] = true;
  if (ALARMS[alarm]) a[Attr.alarm] = ALARMS[alarm];
  return { time: utc(+yy, +mo, +dd, +hh, +mi, +ss), attributes: a };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  if (s.startsWith('@LINK,')) {
    const imei = s.slice(6);
    if (!/^\d+$/.test(imei)) throw new DecodeError('r16h: bad imei');
    return { deviceId: imei };
  }
  let m = GPSD.exec(s);
  if (m) {
    const rec = base(m, 16);
    const [lat, ns, lng, ew, speed, course, altitude] = m.slice(9, 16);
    Object.assign(rec, { valid: true, lat: Number(lat) * (ns === 'S' ? -1 : 1), lng: Number(lng) * (ew === 'W' ? -1 : 1), speed: Number(speed), course: Number(course) % 360, altitude: Number(altitude) });
    if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('r16h: coordinates out of range');
    return { deviceId: m[1], records: [rec] };
  }
  m = LBSD.exec(s);
  if (m) {
    const rec = base(m, 14);
    const [mcc, mnc, lac, cid, rssi] = m.slice(9, 14);
    rec.cells = [{ mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16), rssi: Number(rssi) }];
    return { deviceId: m[1], records: [rec] };
  }
  throw new DecodeError('r16h: unknown message');
}

export const protocol: Protocol = {
  name: 'r16h',
  defaultPort: 5266,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('r16h', [0x24], MAX_FRAME),
  decode,
  commands: [],
};
