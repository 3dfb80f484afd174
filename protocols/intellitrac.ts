/**
 * Intellitrac text reports, one per line:
 * `[<prefix>,]<id>,<yyyyMMddHHmmss>,<lon>,<lat>,<km/h>,<course>,<alt>,<sats>,<event>,<inputs>,<outputs>[,<adc1>,<adc2>]
 *  [,<time>,<n>,<vss>,<rpm>,<coolant>,<fuel>,<fuel rate>,<fuel temp>,<charger pressure>,<tpl>,<axle weight>,<odometer>]`
 * (the tail is J1939 engine data). `$OK:...` lines answer commands.
 * Before the reports a device may send an 8-byte sync packet starting `FA F8`: it is echoed back.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { utc } from './text.ts';
import { DecodeError, FrameError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;

/** An 8-byte `FA F8` sync packet, else a line. */
function createFramer(): Framer {
  return {
    next(buf) {
      let start = 0;
      while (start < buf.length && (buf[start] === 0x0d || buf[start] === 0x0a)) start++;
      if (buf.length - start >= 2 && buf[start] === 0xfa && buf[start + 1] === 0xf8) {
        return buf.length - start >= 8 ? { frame: buf.subarray(start, start + 8), consumed: start + 8 } : null;
      }
      const limit = Math.min(buf.length, start + MAX_FRAME + 1);
      for (let i = start; i < limit; i++) {
        if (buf[i] === 0x0a || buf[i] === 0x0d) return { frame: buf.subarray(start, i), consumed: i + 1 };
      }
      if (buf.length - start > MAX_FRAME) throw new FrameError('intellitrac: line too long');
      return null;
    },
  };
}

const ALARMS: Record<number, string> = {
  164: Alarm.geofenceEnter, 165: Alarm.geofenceExit, 168: Alarm.lowPower, 169: Alarm.lowPower, 170: Alarm.powerOff,
  176: Alarm.powerRestored, 180: Alarm.fallDown, 225: Alarm.jamming, 995: Alarm.sos,
};
const INT = /^-?\d+$/;
const DEC = /^-?\d+\.\d+$/;
const NUM = /^-?\d+(\.\d+)?$/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (frame.length === 8 && frame[0] === 0xfa && frame[1] === 0xf8) return { reply: Buffer.from(frame) };
  const f = frame.toString('latin1').trim().split(',', 64);
  // the id is the number right before the 14-digit time; anything before it is a prefix
  let i = 0;
  while (i + 1 < f.length && !(/^\d+$/.test(f[i]) && /^\d{14}$/.test(f[i + 1]))) i++;
  if (i + 11 > f.length) return {};
  const [id, t, lonS, latS, speed, course, alt, sats, event, input, output] = f.slice(i, i + 11);
  if (![lonS, latS].every((v) => DEC.test(v ?? '')) || ![speed, course, alt].every((v) => NUM.test(v ?? '')) || ![sats, event, input, output].every((v) => /^\d+$/.test(v ?? ''))) return {};
  const [lat, lng] = [Number(latS), Number(lonS)];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('intellitrac: coordinates out of range');
  const n = (k: number) => Number(t.slice(k, k + 2));
  const ev = Number(event);
  const a: Record<string, AttrValue> = { [Attr.event]: ev, [Attr.input]: Number(input), [Attr.output]: Number(output) };
  if (ALARMS[ev]) a[Attr.alarm] = ALARMS[ev];
  const rest = f.slice(i + 11);
  if (DEC.test(rest[0] ?? '')) a[indexed.adc(1)] = Number(rest[0]);
  if (DEC.test(rest[0] ?? '') && DEC.test(rest[1] ?? '')) a[indexed.adc(2)] = Number(rest[1]);
  // J1939: after the two analog values, a time, a counter and ten engine values
  const j = rest.slice(2);
  if (/^\d{14}$/.test(j[0] ?? '') && j.length >= 12 && j.slice(2, 12).every((v) => INT.test(v))) {
    const [vss, rpm, coolant, fuel, rate, fuelTemp, charger, tpl, axle, odometer] = j.slice(2, 12).map(Number);
    Object.assign(a, {
      [Attr.obdSpeed]: vss, [Attr.rpm]: rpm, [Attr.coolantTemp]: coolant, [Attr.fuel]: fuel, [Attr.fuelConsumption]: rate,
      [indexed.temp(1)]: fuelTemp, chargerPressure: charger, tpl, axleWeight: axle, obdOdometer: odometer,
    });
  }
  const rec: DeviceRecord = {
    time: utc(Number(t.slice(0, 4)), n(4), n(6), n(8), n(10), n(12)),
    valid: true,
    lat,
    lng,
    speed: Number(speed),
    course: Number(course),
    altitude: Number(alt),
    satellites: Number(sats),
    attributes: a,
  };
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'intellitrac',
  defaultPort: 5037,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
