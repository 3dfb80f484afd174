/**
 * SmartSole (GPS insoles) `#GTXRP=` reports:
 *   #GTXRP=<imei>,<type>,<fix yyMMddHHmmss>,<lat>,<lon>,<altitude>,<km/h>,<valid>,<sats>,<hdop>,
 *   <device yyMMddHHmmss>,<battery V>,<status>
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const DT = '(\\d\\d)(\\d\\d)(\\d\\d)(\\d\\d)(\\d\\d)(\\d\\d)';
const REPORT = new RegExp(`^#GTXRP=(\\d+),\\d+,${DT},(-?\\d+\\.\\d+),(-?\\d+\\.\\d+),(-?\\d+),(\\d+),([01]),(\\d+),(\\d+\\.\\d+),${DT},(\\d+\\.\\d+),(\\d+)`);
const time = (m: string[], i: number) => utc(Number(m[i]), Number(m[i + 1]), Number(m[i + 2]), Number(m[i + 3]), Number(m[i + 4]), Number(m[i + 5]));

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const [lat, lng] = [Number(m[8]), Number(m[9])];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId: m[1] };
  return {
    deviceId: m[1],
    records: [
      {
        time: time(m, 2),
        lat,
        lng,
        altitude: Number(m[10]),
        speed: Number(m[11]),
        valid: m[12] === '1',
        satellites: Number(m[13]),
        hdop: Number(m[14]),
        attributes: { deviceTime: time(m, 15), [Attr.battery]: Number(m[21]), [Attr.status]: Number(m[22]) },
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'smartsole',
  defaultPort: 5178,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('smartsole', [0x0d, 0x0a], MAX_FRAME),
  decode,
  commands: [],
};
