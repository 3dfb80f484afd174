/**
 * Sabertek text reports between STX (0x02) and ETX (0x03), CR LF after:
 *   ,<id>,<type>,[<imei>,<scid>,<phone>,<yyyyMMddHHmmss>,]<battery %>,<rssi>,<state bits>,<event bits>,<valid>,
 *   <lat>,<lon>,<km/h>,<course>,<altitude>,<sats>,<odometer km>,
 * State: 0 ignition, 1 external power, 2 jamming, 3 tampering; events: 0 harsh braking, 1 overspeed,
 * 2 accident, 3 harsh cornering. Reports without a time are stamped on arrival. Each report is
 * acknowledged with ACK (0x06); an unknown device is refused with NAK (0x15).
 */
import { Alarm, Attr } from './attributes.ts';
import { bracketedFramer, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const ACK = Buffer.from([0x06]);
const NAK = Buffer.from([0x15]);
const REPORT =
  /^,(\d+),\d,(?:\d+,\d+,[^,]*,(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),)?(\d+),(\d+),(\d+),(\d+),(\d),(-?\d+\.\d+),(-?\d+\.\d+),(\d+),(\d+),(\d+),(\d+),(\d+),/;
const STATE_ALARMS: Array<[number, string]> = [[4, Alarm.jamming], [8, Alarm.tampering]];
const EVENT_ALARMS: Array<[number, string]> = [[1, Alarm.hardBraking], [2, Alarm.overspeed], [4, Alarm.accident], [8, Alarm.hardCornering]];

/** The text between STX and ETX. */
function createFramer(): Framer {
  const bracketed = bracketedFramer('sabertek', 0x02, 0x03, MAX_FRAME);
  return {
    next(buffer) {
      const f = bracketed.next(buffer);
      return f && { frame: f.frame.subarray(1, f.frame.length - 1), consumed: f.consumed };
    },
  };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').replace(/^\x02/, ''));
  if (!m) return {};
  const [lat, lng] = [Number(m[13]), Number(m[14])];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('sabertek: coordinates out of range');
  const [state, events] = [Number(m[10]), Number(m[11])];
  const a: Record<string, number | boolean | string> = { [Attr.batteryLevel]: Number(m[8]), [Attr.rssi]: Number(m[9]), [Attr.ignition]: (state & 1) !== 0, [Attr.charge]: (state & 2) !== 0 };
  // one alarm attribute: the last set bit wins, events over state
  for (const [bit, alarm] of STATE_ALARMS) if (state & bit) a[Attr.alarm] = alarm;
  for (const [bit, alarm] of EVENT_ALARMS) if (events & bit) a[Attr.alarm] = alarm;
  a[Attr.odometer] = Number(m[19]) * 1000;
  return {
    deviceId: m[1],
    records: [
      {
        time: m[2] ? utc(Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7])) : ctx.now,
        valid: m[12] === '1',
        lat,
        lng,
        speed: Number(m[15]),
        course: Number(m[16]) % 360,
        altitude: Number(m[17]),
        satellites: Number(m[18]),
        attributes: a,
      },
    ],
    reply: ACK,
  };
}

export const protocol: Protocol = {
  name: 'sabertek',
  defaultPort: 5166,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  refuse: () => NAK,
  commands: [],
};
