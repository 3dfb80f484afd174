/**
 * TR-900 (and compatible) text reports ending with `!`:
 *   ><id>,<period>,<fix 0|1>,<yyMMdd>,<HHmmss>,<E|W><dddmm.mmmm>,<N|S><ddmm.mmmm>,<command>,<speed kn>,
 *   <course>,<gsm>,<event>,<adc>-<battery>,<impulses>,<inputs>,<status>*<checksum>!
 * The devices expect no answer. NEOS units send the same reports over UDP (`protocols/neos.ts`).
 */
import { Attr, indexed } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { degMin, delimitedFramer, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = /^>(\d+),\d+,(\d),(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),([EW])(\d{3})(\d\d\.\d+),([NS])(\d\d)(\d\d\.\d+),[^,]*,(\d+\.?\d*),(\d+\.?\d*),(\d+),(\d+),(\d+)-(\d+),\d+,(\d+),(\d+)/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const lng = degMin(m[10], m[11], '', m[9]);
  const lat = degMin(m[13], m[14], '', m[12]);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId: m[1] };
  return {
    deviceId: m[1],
    records: [
      {
        time: utc(Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7]), Number(m[8])),
        valid: m[2] === '1',
        lat,
        lng,
        speed: knotsToKmh(Number(m[15])),
        course: Number(m[16]) % 360,
        attributes: { [Attr.rssi]: Number(m[17]), [Attr.event]: Number(m[18]), [indexed.adc(1)]: Number(m[19]), [Attr.battery]: Number(m[20]), [Attr.input]: Number(m[21]), [Attr.status]: m[22] },
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'tr900',
  defaultPort: 5074,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('tr900', [0x21], MAX_FRAME, true),
  decode,
  commands: [],
};
