/**
 * MTX (Mobile Tracking eXchange) text reports: `#MTX,<imei>,<yyyyMMdd>,<HHmmss>,<lat>,<lon>,<speed kn>,
 * <course>,<odometer km>,<d+|X>,<0|1|X>,<inputs 0/1...>,<outputs 0/1...>,<adc 1>,<adc 2>`.
 * Every message is answered `#ACK`.
 */
import { Attr, indexed } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, latin1, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPLY = latin1('#ACK');
const REPORT = /^#MTX,(\d+),(\d{4})(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(-?\d+\.\d+),(-?\d+\.\d+),(\d+\.?\d*),(\d+),(\d+\.?\d*),(?:\d+|X),(?:[01]|X),([01]+),([01]+),(\d+),(\d+)/;
/** `0`/`1` characters as a mask, the first character being line 1. */
const mask = (s: string) => [...s.slice(0, 16)].reduce((m, c, i) => (c === '1' ? m | (1 << i) : m), 0);

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return { reply: REPLY };
  const [lat, lng] = [Number(m[8]), Number(m[9])];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId: m[1], reply: REPLY };
  return {
    deviceId: m[1],
    records: [
      {
        time: utc(Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7])),
        valid: true,
        lat,
        lng,
        speed: knotsToKmh(Number(m[10])),
        course: Number(m[11]) % 360,
        attributes: { [Attr.odometer]: Number(m[12]) * 1000, [Attr.input]: mask(m[13]), [Attr.output]: mask(m[14]), [indexed.adc(1)]: Number(m[15]), [indexed.adc(2)]: Number(m[16]) },
      },
    ],
    reply: REPLY,
  };
}

export const protocol: Protocol = {
  name: 'mtx',
  defaultPort: 5083,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('mtx', [0x0d, 0x0a], MAX_FRAME),
  decode,
  commands: [],
};
