/**
 * Jido text protocol, messages cut at `#`:
 *   `*<imei>,<type>,[<A|V>,]<ddmmyy>,<hhmmss>,<ddmm.mmmm>,<N|S>,<dddmm.mmmm>,<E|W>,` then either
 *   `<km/h>,<odometer>,<course>,<altitude>,<satellites>,<gsm1>,<gsm2>,<charging>,<battery %>,<mode Y|K|N>,<lock>,<x>,<y>,<z>,`
 *   or one data field, then a checksum (2 hex). Types 3 and 4 are low battery and tampering alarms.
 * The devices expect no answer.
 */
import { Alarm, Attr } from './attributes.ts';
import { delimitedFramer, nmeaCoordinate, utc } from './text.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT =
  /^\*(\d+),(\d+),(?:([AV]),)?(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),(?:(\d+),(\d+),(\d+),(-?\d+),(\d+),\d+,\d+,([01]),(\d+),([YKN]),([01]),[^,]+,[^,]+,[^,]+,|[^,]*,)[0-9A-Fa-f]{2}$/;
const ALARMS: Record<string, string> = { '3': Alarm.lowBattery, '4': Alarm.tampering };

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('jido: not a report');
  const [, imei, type, valid, dd, mo, yy, hh, mi, ss, lat, ns, lng, ew, speed, odometer, course, altitude, sats, charging, battery, mode, lock] = m;
  const a: Record<string, AttrValue> = {};
  if (ALARMS[Number(type).toString()]) a[Attr.alarm] = ALARMS[Number(type).toString()];
  const rec: DeviceRecord = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: valid ? valid === 'A' : true,
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew),
    attributes: a,
  };
  if (speed !== undefined) {
    Object.assign(rec, { speed: Number(speed), course: Number(course) % 360, altitude: Number(altitude), satellites: Number(sats) });
    Object.assign(a, { [Attr.odometer]: Number(odometer), [Attr.charge]: charging === '1', [Attr.batteryLevel]: Number(battery), mode, [Attr.blocked]: lock === '1' });
  }
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'jido',
  defaultPort: 5237,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('jido', [0x23], MAX_FRAME),
  decode,
  commands: [],
};
