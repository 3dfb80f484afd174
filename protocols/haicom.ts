/**
 * Haicom (HI-602, HI-603) text reports:
 *   $GPRS<imei>,<firmware>,<yyMMdd>,<HHmmss>,<flags><ddmmmmm><dddmmmmm>,<speed 0.1 kn>,<course 0.1°>,<status>,
 *   <gprs count>,<power-save count>,<switches>,<relays>[LH|HH...]#V<battery 0.1 V>
 * Flags: bit 0 fix valid, bit 1 east, bit 2 north. Coordinates are degrees and thousandths of minutes.
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = /^\$GPRS(\d+),([^,]+),(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(\d)(\d\d)(\d{5})(\d{3})(\d{5}),(\d+),(\d+),(\d+),(\d+)?,(\d+)?,(\d+),(\d+)(?:[LH]{2})?#V(\d+)/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const flags = Number(m[9]);
  const lat = (Number(m[10]) + Number(m[11]) / 60000) * (flags & 4 ? 1 : -1);
  const lng = (Number(m[12]) + Number(m[13]) / 60000) * (flags & 2 ? 1 : -1);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId: m[1] };
  const a: Record<string, string | number> = { versionFw: m[2], [Attr.status]: m[16], switches: m[19], relays: m[20], [Attr.battery]: Number(m[21]) / 10 };
  if (m[17]) a.gprsCount = Number(m[17]);
  if (m[18]) a.powersaveCountdown = Number(m[18]);
  return {
    deviceId: m[1],
    records: [
      {
        time: utc(Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7]), Number(m[8])),
        valid: (flags & 1) !== 0,
        lat,
        lng,
        speed: knotsToKmh(Number(m[14]) / 10),
        course: (Number(m[15]) / 10) % 360,
        attributes: a,
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'haicom',
  defaultPort: 5063,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('haicom', [0x2a, 0x0d, 0x0a], MAX_FRAME),
  decode,
  commands: [],
};
