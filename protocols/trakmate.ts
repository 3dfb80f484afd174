/**
 * TrakMate text protocol (AIS-140 style), messages `^TM<type>|...|` cut at `#`:
 *   SRT (start) `<uid>|<lat>|<lon>|<hhmmss>|<ddmmyy>|<software>|<hardware>|`
 *   ALT (alert) `<uid>|<seq>|<alert type>|<alert data>|<lat>|<lon>|<hhmmss>|<ddmmyy>|<km/h>|<course>|`
 *   others (PER, STP, ...) `<uid>|<seq>|<lat>|<lon>|<hhmmss>|<ddmmyy>|<km/h>|<course>|[<satellites>|]<ignition>|`
 *     then `<dop1>|<dop2>|<adc>|<battery>|` or `<accelerometer x y z>|<movement>|`, then
 *     `<vehicle battery>|<GPS odometer>|[<pulse odometer>|]<main power>|<fix 0|1>|<live 0 | cache 1>|`
 * Alert types 1 SOS, 3 geofence, 4 power cut. The devices expect no answer.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const POS = String.raw`(\d+\.\d+)\|(\d+\.\d+)\|(\d\d)(\d\d)(\d\d)\|(\d\d)(\d\d)(\d\d)\|`;
const SRT = new RegExp(String.raw`^\^TMSRT\|([^|]+)\|${POS}(\d+\.\d+)\|(\d+\.\d+)\|`);
const ALT = new RegExp(String.raw`^\^TMALT\|([^|]+)\|\d+\|(\d+)\|\d+\|${POS}(\d+\.\d+)\|(\d+\.\d+)\|`);
const PER = new RegExp(
  String.raw`^\^TM...\|([^|]+)\|\d+\|${POS}(\d+\.\d+)\|(\d+\.\d+)\|(?:(\d+)\|)?([01])\|(?:(\d+)\|(\d+)\|(\d+\.\d+)\|(\d+\.\d+)\||-?\d+ -?\d+ -?\d+\|([01])\|)(\d+\.\d+)\|(\d+\.\d+)\|(?:(\d+\.\d+)\|)?([01])\|([01])\|([01])\|`,
);
const ALARMS: Record<string, string> = { '1': Alarm.sos, '3': Alarm.geofence, '4': Alarm.powerCut };

/** Position fields from the 8 groups at `i`: lat, lon, hhmmss, ddmmyy. */
function position(m: RegExpExecArray, i: number, attributes: Record<string, AttrValue>): DeviceRecord {
  const [lat, lng, hh, mi, ss, dd, mo, yy] = m.slice(i, i + 8);
  const rec = { time: utc(+yy, +mo, +dd, +hh, +mi, +ss), valid: true, lat: Number(lat), lng: Number(lng), attributes };
  if (rec.lat > 90 || rec.lng > 180) throw new DecodeError('trakmate: coordinates out of range');
  return rec;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  let m = SRT.exec(s);
  if (m) return { deviceId: m[1], records: [position(m, 2, { versionFw: m[10], versionHw: m[11] })] };
  m = ALT.exec(s);
  if (m) {
    const rec = position(m, 3, ALARMS[m[2]] ? { [Attr.alarm]: ALARMS[m[2]] } : {});
    return { deviceId: m[1], records: [{ ...rec, speed: Number(m[11]), course: Number(m[12]) % 360 }] };
  }
  m = PER.exec(s);
  if (!m) throw new DecodeError('trakmate: not a report');
  const [speed, course, sats, ignition, dop1, dop2, adc, battery, movement, power, odometer, pulse, mainPower, fix, cache] = m.slice(10);
  const a: Record<string, AttrValue> = { [Attr.ignition]: ignition === '1' };
  if (dop1 !== undefined) Object.assign(a, { dop1: Number(dop1), dop2: Number(dop2), [indexed.adc(1)]: Number(adc), [Attr.battery]: Number(battery) });
  if (movement !== undefined) a[Attr.motion] = movement === '1';
  Object.assign(a, { [Attr.power]: Number(power), [Attr.odometer]: Number(odometer), [Attr.status]: Number(mainPower), [Attr.archive]: cache === '1' });
  if (pulse !== undefined) a.pulseOdometer = Number(pulse);
  const rec = { ...position(m, 2, a), speed: Number(speed), course: Number(course) % 360, valid: fix === '1' };
  return { deviceId: m[1], records: [sats !== undefined ? { ...rec, satellites: Number(sats) } : rec] };
}

export const protocol: Protocol = {
  name: 'trakmate',
  defaultPort: 5127,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('trakmate', [0x23], MAX_FRAME),
  decode,
  commands: [],
};
