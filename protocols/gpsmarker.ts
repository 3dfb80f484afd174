/**
 * GPS Marker (M-Plata and other GPS Marker units) text reports `$GM...#`:
 *   $GM<type>[<index, 2 hex>]<imei 15>T<ddMMyy><HHmm[ss]><N|S><ddmmmmmm><E|W><dddmmmmmm><speed ddd>
 *   <course ddd><sats, 1 hex><battery % dd><input d><output d><temperature ddd>...#
 * Coordinates are degrees and minutes with four decimals without the dot. Reports of other kinds
 * (`G` instead of a hemisphere: cell data) carry no fix. The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { bracketedFramer, degMin, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = /^\$GM\d(?:[0-9A-Fa-f]{2})?(\d{15})T(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)?([NS])(\d\d)(\d\d)(\d{4})([EW])(\d{3})(\d\d)(\d{4})(\d{3})(\d{3})([0-9A-Fa-f])(\d\d)(\d)(\d)(\d{3})/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1'));
  if (!m) return {};
  const lat = degMin(m[9], m[10], m[11], m[8]);
  const lng = degMin(m[13], m[14], m[15], m[12]);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId: m[1] };
  return {
    deviceId: m[1],
    records: [
      {
        time: utc(Number(m[4]), Number(m[3]), Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7] ?? 0)),
        valid: true,
        lat,
        lng,
        speed: Number(m[16]),
        course: Number(m[17]) % 360,
        satellites: parseInt(m[18], 16),
        attributes: { [Attr.batteryLevel]: Number(m[19]), [Attr.input]: Number(m[20]), [Attr.output]: Number(m[21]), [indexed.temp(1)]: Number(m[22]) - 273 },
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'gpsmarker',
  defaultPort: 5057,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => bracketedFramer('gpsmarker', 0x24, 0x23, MAX_FRAME),
  decode,
  commands: [],
};
