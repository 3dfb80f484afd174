/**
 * SVIAS (Brazilian trackers) text reports `[...`, comma-separated:
 *   [<hw>,<sw>,<index>,<imei>,<hour meter>,<dMMyy>,<hmmss>,<[-]ddmmmmmmm>,<[-]dddmmmmmmm>,<speed 0.01 km/h>,
 *   <course 0.01°>,<odometer 100 m>,<inputs>,<outputs>,<d>,<d>,<power mV>,<battery %>,<rssi>,...
 * Coordinates: degrees, then minutes with five decimals, without dots. Inputs: bit 0 SOS, bit 4
 * ignition; outputs bit 0 is the fix state. A report ends with `]`. Every message is answered with `@`.
 */
import { Alarm, Attr } from './attributes.ts';
import { degMin, delimitedFramer, latin1, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPLY = latin1('@');
const REPORT = /^\[\d{4},\d{4},\d+,(\d+),\d+,(\d+)(\d\d)(\d\d),(\d+)(\d\d)(\d\d),(-?)(\d+)(\d\d)(\d{5}),(-?)(\d+)(\d\d)(\d{5}),(\d+),(\d+),(\d+),(\d+),(\d+),\d,\d,(\d+),(\d+),(\d+)/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return { reply: REPLY };
  const lat = degMin(m[9], m[10], m[11], m[8] ? 'S' : 'N');
  const lng = degMin(m[13], m[14], m[15], m[12] ? 'W' : 'E');
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId: m[1], reply: REPLY };
  const [input, output] = [Number(m[19]), Number(m[20])];
  const a: DeviceRecord['attributes'] = {
    [Attr.odometer]: Number(m[18]) * 100,
    [Attr.input]: input,
    [Attr.output]: output,
    [Attr.ignition]: (input & 0x10) !== 0,
    [Attr.power]: Number(m[21]) / 1000,
    [Attr.batteryLevel]: Number(m[22]),
    [Attr.rssi]: Number(m[23]),
  };
  if (input & 1) a[Attr.alarm] = Alarm.sos;
  return {
    deviceId: m[1],
    records: [
      {
        time: utc(Number(m[4]), Number(m[3]), Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7])),
        valid: (output & 1) !== 0,
        lat,
        lng,
        speed: Number(m[16]) / 100,
        course: (Number(m[17]) / 100) % 360,
        attributes: a,
      },
    ],
    reply: REPLY,
  };
}

export const protocol: Protocol = {
  name: 'svias',
  defaultPort: 5168,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('svias', [0x5d], MAX_FRAME), // a report ends with `]`
  decode,
  commands: [],
};
