/**
 * VTFMS (Indian AIS-140 fleet units) text reports `(<fields>)<3-digit checksum>`:
 *   (<imei>,<count>,<packet id>,<res>,<rssi>,<fix>,<sats>,<res>,<A|V>,<HHmmss>,<ddMMyy>,<lat>,<lon>,
 *   <course | N..NW>,<km/h>,<hours>,<idle hours>,<antenna K|N|T>,<odometer 100 m>,<power 0|1>,<supply V>,
 *   <res>,<fuel %>,<adc 1>,<res>,<adc 2>,<in 1..4>,<out 1..3>,<res>,<res>)ccc
 * Coordinates are decimal degrees, or `ddmm.mmmm` on older firmware (told apart by range). Packet ids
 * 10, 14, 15, 32, 33 are alarms. The devices expect no answer.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { nmeaDegrees } from './binary.ts';
import { bracketedFramer, num, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = new RegExp(
  '^\\((\\d{15}),[0-9A-Z]{3}\\d\\d,(\\d\\d),[^,]*,(\\d+)?,(?:\\d+)?,(\\d+)?,[^,]*,([AV]),(\\d\\d)(\\d\\d)(\\d\\d),(\\d\\d)(\\d\\d)(\\d\\d),(-?\\d+\\.\\d+),(-?\\d+\\.\\d+),(?:(\\d+)|([NESW]{1,2})),(\\d+),(\\d+),(\\d+),[KNT],(\\d+),([01]),(\\d+\\.\\d+),[^,]*,(\\d+)?,(\\d+\\.\\d+)?,[^,]*,(\\d+\\.\\d+)?,' +
    '([01]),([01]),([01]),([01]),([01]),([01]),([01]),[^,]*,[^,]*\\)\\d{3}',
);
const DIRECTIONS = ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'];
const ALARMS: Record<number, string> = { 10: Alarm.overspeed, 14: Alarm.powerCut, 15: Alarm.powerRestored, 32: Alarm.hardBraking, 33: Alarm.hardAcceleration };

/** `(...)` and the three checksum digits after it. */
function createFramer(): Framer {
  const bracketed = bracketedFramer('vtfms', 0x28, 0x29, MAX_FRAME);
  return {
    next(buffer) {
      const f = bracketed.next(buffer);
      if (!f || buffer.length < f.consumed + 3) return null;
      const from = f.consumed - f.frame.length;
      return { frame: buffer.subarray(from, f.consumed + 3), consumed: f.consumed + 3 };
    },
  };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  let [lat, lng] = [Number(m[12]), Number(m[13])];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) [lat, lng] = [Math.sign(lat) * nmeaDegrees(Math.abs(lat)), Math.sign(lng) * nmeaDegrees(Math.abs(lng))];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('vtfms: coordinates out of range');
  const a: DeviceRecord['attributes'] = {
    [Attr.hours]: Number(m[17]) * 3_600_000,
    idleHours: Number(m[18]),
    [Attr.odometer]: Number(m[19]) * 100,
    [Attr.charge]: m[20] === '1',
    [Attr.power]: Number(m[21]),
  };
  const alarm = ALARMS[Number(m[2])];
  if (alarm) a[Attr.alarm] = alarm;
  const optional: Array<[string, string | undefined]> = [[Attr.rssi, m[3]], [Attr.fuelLevel, m[22]], [indexed.adc(1), m[23]], [indexed.adc(2), m[24]]];
  for (const [k, v] of optional) if (num(v) !== undefined) a[k] = num(v)!;
  for (let i = 0; i < 4; i++) a[indexed.in(i + 1)] = m[25 + i] === '1';
  for (let i = 0; i < 3; i++) a[indexed.out(i + 1)] = m[29 + i] === '1';
  const rec: DeviceRecord = {
    time: utc(Number(m[11]), Number(m[10]), Number(m[9]), Number(m[6]), Number(m[7]), Number(m[8])),
    valid: m[5] === 'A',
    lat,
    lng,
    course: m[14] !== undefined ? Number(m[14]) % 360 : Math.max(0, DIRECTIONS.indexOf(m[15])) * 45,
    speed: Number(m[16]),
    attributes: a,
  };
  if (m[4] !== undefined) rec.satellites = Number(m[4]);
  return { deviceId: m[1], records: [rec] };
}

export const protocol: Protocol = {
  name: 'vtfms',
  defaultPort: 5145,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
