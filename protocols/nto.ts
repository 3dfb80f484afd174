/**
 * NTO text protocol, messages cut at `&`:
 *   `^NB,<imei>,<type 3>,<ddmmyy>,<hhmmss>,<A|V|M>,<N|S>,<ddmm.mmmm>,<E|W>,<dddmm.mmmm>,<km/h>,<course>,<status hex>,...`
 * Status bits: 1 jamming, 25 power cut, 26 overspeed, 27 vibration, 28 geofence enter, 29 geofence exit,
 * 32 low battery, 36 door. The devices expect no answer.
 */
import { Alarm, Attr } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = /^\^NB,(\d+),(...),(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),([AVM]),([NS]),(\d\d)(\d\d\.\d+),([EW]),(\d{3})(\d\d\.\d+),(\d+\.?\d*),(\d+),([0-9A-Fa-f]+),/;
const STATUS_ALARMS: Array<[number, string]> = [
  [1, Alarm.jamming], [25, Alarm.powerCut], [26, Alarm.overspeed], [27, Alarm.vibration],
  [28, Alarm.geofenceEnter], [29, Alarm.geofenceExit], [32, Alarm.lowBattery], [36, Alarm.door],
];

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('nto: not a report');
  const [, imei, type, dd, mo, yy, hh, mi, ss, valid, ns, latD, latM, ew, lngD, lngM, speed, course, statusHex] = m;
  const status = BigInt(`0x${statusHex.slice(-16)}`);
  const a: Record<string, number | string> = { type, [Attr.status]: Number(status) };
  for (const [bit, alarm] of STATUS_ALARMS) if ((status >> BigInt(bit)) & 1n) a[Attr.alarm] = alarm;
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: valid === 'A',
    lat: (Number(latD) + Number(latM) / 60) * (ns === 'S' ? -1 : 1),
    lng: (Number(lngD) + Number(lngM) / 60) * (ew === 'W' ? -1 : 1),
    speed: Number(speed),
    course: Number(course) % 360,
    attributes: a,
  };
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('nto: coordinates out of range');
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'nto',
  defaultPort: 5250,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('nto', [0x26], MAX_FRAME),
  decode,
  commands: [],
};
