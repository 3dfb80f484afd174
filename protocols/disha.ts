/**
 * Disha (Indian AVL units) text reports, `#`-separated, ending with `*`:
 *   $A#A#<imei>#<A|V|M|X>#<HHmmss>#<ddMMyy>#<ddmm.mmmm>#<N|S>#<dddmm.mmmm>#<E|W>#<speed kn>#<course>#
 *   <sats>#<hdop>#<gsm>#<power mode: 2 external>#<battery %>#<adc 1>#<adc 2>#<day km>#<odometer km>#<inputs>*
 * The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, nmeaCoordinate, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT =
  /\$A#A#(\d+)#([AVMX])#(\d\d)(\d\d)(\d\d)#(\d\d)(\d\d)(\d\d)#(\d{4}\.\d+)#([NS])#(\d{5}\.\d+)#([EW])#(\d+\.\d+)#(\d+\.\d+)#(\d+)#(\d+\.\d+)#(\d+)#([012])#(\d+)#(\d+)#(\d+)#\d+\.\d+#(\d+\.\d+)#([01]+)/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1'));
  if (!m) return {};
  const lat = nmeaCoordinate(m[9], m[10]);
  if (Math.abs(lat) > 90) return { deviceId: m[1] };
  const inputs: Record<string, boolean> = {};
  [...m[23].slice(0, 16)].forEach((c, i) => (inputs[indexed.in(i + 1)] = c === '1'));
  return {
    deviceId: m[1],
    records: [
      {
        time: utc(Number(m[8]), Number(m[7]), Number(m[6]), Number(m[3]), Number(m[4]), Number(m[5])),
        valid: m[2] === 'A',
        lat,
        lng: nmeaCoordinate(m[11], m[12]),
        speed: knotsToKmh(Number(m[13])),
        course: Number(m[14]) % 360,
        satellites: Number(m[15]),
        hdop: Number(m[16]),
        attributes: {
          [Attr.rssi]: Number(m[17]),
          [Attr.charge]: m[18] === '2',
          [Attr.batteryLevel]: Number(m[19]),
          [indexed.adc(1)]: Number(m[20]),
          [indexed.adc(2)]: Number(m[21]),
          [Attr.odometer]: Math.round(Number(m[22]) * 1000),
          ...inputs,
        },
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'disha',
  defaultPort: 5097,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('disha', [0x2a], MAX_FRAME, true),
  decode,
  commands: [],
};
