/**
 * Swiftech text reports `@@<imei>,<res>,<res>,<HHmmss>,<ddmm.mmmm>,<N|S>,<dddmm.mmmm>,<E|W>,<speed kn>,
 * <ddMMyy>,<A|V>,<status bits: ignition, -, out 1, out 2>,<charging>,<res>,<adc 1 mV>,<adc 2 mV>,...`.
 * The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, nmeaCoordinate, utc } from './text.ts';
import { type AttrValue, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = /^@@(\d+),[^,]*,[^,]*,(\d\d)(\d\d)(\d\d),(\d{4}\.\d+),([NS]),(\d{4,5}\.\d+),([EW]),(\d+\.\d+),(\d\d)(\d\d)(\d\d),([AV]),(\d{4}),([01]),\d+,(\d+),(\d+),/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const lat = nmeaCoordinate(m[5], m[6]);
  if (Math.abs(lat) > 90) return { deviceId: m[1] };
  // the status digits are bits (ignition, -, out 1, out 2) where they are all 0/1; other firmware sends a code
  const bits = /^[01]{4}$/.test(m[14]) ? parseInt(m[14], 2) : undefined;
  const status: Record<string, AttrValue> =
    bits === undefined ? { [Attr.status]: m[14] } : { [Attr.ignition]: (bits & 8) !== 0, [indexed.out(1)]: (bits & 2) !== 0, [indexed.out(2)]: (bits & 1) !== 0 };
  return {
    deviceId: m[1],
    records: [
      {
        time: utc(Number(m[12]), Number(m[11]), Number(m[10]), Number(m[2]), Number(m[3]), Number(m[4])),
        valid: m[13] === 'A',
        lat,
        lng: nmeaCoordinate(m[7], m[8]),
        speed: knotsToKmh(Number(m[9])),
        attributes: {
          ...status,
          [Attr.charge]: m[15] === '1',
          [indexed.adc(1)]: Number(m[16]) / 1000,
          [indexed.adc(2)]: Number(m[17]) / 1000,
        },
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'swiftech',
  defaultPort: 5217,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('swiftech', [0x23, 0x0d, 0x0a], MAX_FRAME),
  decode,
  commands: [],
};
