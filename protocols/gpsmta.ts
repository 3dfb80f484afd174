/**
 * GPSMTA (phone and tracker apps) UDP lines, space-separated:
 *   <uid> <unix time> <lat> <lon> <speed kn> <course> <accuracy m> <altitude> <flags> <battery %> <temperature> <charging 0|1>
 * Each line is answered with its own time field.
 */
import { Attr, indexed } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { latin1 } from './text.ts';
import { type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const REPORT = /^([^ ]+) (\d+) (-?\d+\.\d+) (-?\d+\.\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d)/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const [lat, lng] = [Number(m[3]), Number(m[4])];
  const reply = latin1(m[2]);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId: m[1], reply };
  return {
    deviceId: m[1],
    records: [
      {
        time: Number(m[2]) * 1000,
        valid: true,
        lat,
        lng,
        speed: knotsToKmh(Number(m[5])),
        course: Number(m[6]) % 360,
        precision: Number(m[7]),
        altitude: Number(m[8]),
        attributes: { [Attr.status]: Number(m[9]), [Attr.batteryLevel]: Number(m[10]), [indexed.temp(1)]: Number(m[11]), [Attr.charge]: m[12] === '1' },
      },
    ],
    reply,
  };
}

export const protocol: Protocol = {
  name: 'gpsmta',
  defaultPort: 5038,
  transports: ['udp'],
  maxFrameSize: 1024,
  decode,
  commands: [],
};
