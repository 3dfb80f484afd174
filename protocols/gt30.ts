/**
 * GT30 text protocol, one message a line:
 *   `$$<length hex 4><device id, 14 chars><type hex 4>[<alarm byte>]<hhmmss.sss>,<A|V>,<ddmm.mmmm>,<N|S>,
 *    <dddmm.mmmm>,<E|W>,[<knots>],[<course>],<ddmmyy>...|<hdop>|<altitude><checksum hex 4>`
 * Alarm bytes 0x01-0x03 SOS, 0x10 low battery, 0x11 overspeed, 0x12 geofence. No answer is expected.
 */
import { Alarm, Attr } from './attributes.ts';
import { delimitedFramer, nmeaFix } from './text.ts';
import type { DecodeContext, DecodeResult, Protocol } from './types.ts';

const MAX_FRAME = 1024;
const MESSAGE =
  /^\$\$[0-9A-Fa-f]{4}(.{14})[0-9A-Fa-f]{4}(.)?(\d\d)(\d\d)(\d\d)\.(\d{3}),([AV]),(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),(\d+\.\d+)?,(\d+\.\d+)?,(\d\d)(\d\d)(\d\d)[^|]*\|(\d+\.\d+)\|(-?\d+)[0-9A-Fa-f]{4}$/s;
const ALARMS: Record<number, string> = { 0x01: Alarm.sos, 0x02: Alarm.sos, 0x03: Alarm.sos, 0x10: Alarm.lowBattery, 0x11: Alarm.overspeed, 0x12: Alarm.geofence };

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = MESSAGE.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const [, id, alarm, hh, mi, ss, ms, valid, lat, ns, lng, ew, knots, course, dd, mo, yy, hdop, altitude] = m;
  const rec = { ...nmeaFix({ dd, mo, yy, hh, mi, ss, ms, valid, lat, ns, lng, ew, knots, course }), hdop: Number(hdop), altitude: Number(altitude) };
  const code = alarm !== undefined ? ALARMS[alarm.charCodeAt(0)] : undefined;
  if (code) rec.attributes[Attr.alarm] = code;
  return { deviceId: id.trim(), records: [rec] };
}

export const protocol: Protocol = {
  name: 'gt30',
  defaultPort: 5131,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('gt30', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
