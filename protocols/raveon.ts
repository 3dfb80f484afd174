/**
 * Raveon (RV-M7 and other radio modems) `$PRAVE` sentences:
 *   $PRAVE,<id>,<dest>,<[-]ddmm.mmmm>,<[-]dddmm.mmmm>,<HHmmss>,<fix>,<sats>,<altitude>,<temperature>,
 *   <supply V>,<inputs>,<rssi>,<km/h>,<course>,<status letter>,...*cs
 * The sentence carries a time of day only. The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { degMin, delimitedFramer, timeOfDay } from './text.ts';
import { type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = /^\$PRAVE,(\d+),\d+,(-?)(\d+)(\d\d\.\d+),(-?)(\d+)(\d\d\.\d+),(\d\d)(\d\d)(\d\d),(\d),(\d+),(-?\d+),(-?\d+),(\d+\.\d+),(\d+),(-?\d+),(\d+),(\d+),([PMACIVSX])?,/;

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const lat = degMin(m[3], m[4], '', m[2] ? 'S' : 'N');
  const lng = degMin(m[6], m[7], '', m[5] ? 'W' : 'E');
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId: m[1] };
  const a: DeviceRecord['attributes'] = { [indexed.temp(1)]: Number(m[14]), [Attr.power]: Number(m[15]), [Attr.input]: Number(m[16]), [Attr.rssi]: Number(m[17]) };
  if (m[20]) a[Attr.status] = m[20];
  return {
    deviceId: m[1],
    records: [
      {
        time: timeOfDay(ctx.now, Number(m[8]), Number(m[9]), Number(m[10])),
        valid: m[11] !== '0',
        lat,
        lng,
        satellites: Number(m[12]),
        altitude: Number(m[13]),
        speed: Number(m[18]),
        course: Number(m[19]) % 360,
        attributes: a,
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'raveon',
  defaultPort: 5117,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('raveon', [0x0d, 0x0a], MAX_FRAME),
  decode,
  commands: [],
};
