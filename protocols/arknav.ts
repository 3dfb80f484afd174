/**
 * Arknav (PT33 and other Arknav units) text reports, one per line:
 *   <imei>,<id code>,<status hex>,<model>,<A|V>,<ddmm.mmmm>,<N|S>,<dddmm.mmmm>,<E|W>,<speed kn>,<course>,
 *   <hdop>,<HH:mm:ss dd-MM-yy>,<unit version>,<battery %>,...
 * On PT33 the status bits are alarms: 0x001 overspeed, 0x010 SOS, 0x100 low battery, 0x200 movement,
 * 0x400 geofence exit. The devices expect no answer.
 */
import { Alarm, Attr } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, nmeaCoordinate, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT =
  /^(\d+),.{6},([0-9A-Fa-f]{3}),(.{4}),([AV]),(\d{4}\.\d+),([NS]),(\d{5}\.\d+),([EW]),(\d+\.?\d*),(\d+\.?\d*),(\d+\.?\d*),(\d\d):(\d\d):(\d\d) (\d\d)-(\d\d)-(\d\d),.{4},(..)/;
const PT33_ALARMS: Array<[number, string]> = [
  [0x001, Alarm.overspeed],
  [0x010, Alarm.sos],
  [0x100, Alarm.lowBattery],
  [0x200, Alarm.movement],
  [0x400, Alarm.geofenceExit],
];

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const lat = nmeaCoordinate(m[5], m[6]);
  if (Math.abs(lat) > 90) return { deviceId: m[1] };
  const status = parseInt(m[2], 16);
  const a: DeviceRecord['attributes'] = { [Attr.status]: status, model: m[3] };
  if (m[3] === 'PT33') {
    if (/^\d+$/.test(m[18])) a[Attr.batteryLevel] = Number(m[18]);
    const alarm = PT33_ALARMS.find(([bit]) => status & bit);
    if (alarm) a[Attr.alarm] = alarm[1];
  }
  return {
    deviceId: m[1],
    records: [
      {
        time: utc(Number(m[17]), Number(m[16]), Number(m[15]), Number(m[12]), Number(m[13]), Number(m[14])),
        valid: m[4] === 'A',
        lat,
        lng: nmeaCoordinate(m[7], m[8]),
        speed: knotsToKmh(Number(m[9])),
        course: Number(m[10]) % 360,
        hdop: Number(m[11]),
        attributes: a,
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'arknav',
  defaultPort: 5107,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('arknav', [0x0d, 0x0a], MAX_FRAME),
  decode,
  commands: [],
};
