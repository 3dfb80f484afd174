/**
 * Enfora (MT-GL, Spider) binary-wrapped NMEA: length (u16, the whole message), API header, the
 * modem id (the first run of 15 digits: the IMEI) and, in position reports, a `GPRMC` sentence
 * (knots). Messages without an RMC only name the device. The devices expect no answer.
 */
import { knotsToKmh } from './binary.ts';
import { lengthFieldFramer } from './framers.ts';
import { nmeaCoordinate, num, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const RMC = /GPRMC,(\d\d)(\d\d)(\d\d)\.?\d*,([AV]),(\d{4}\.\d+),([NS]),(\d{5}\.\d+),([EW]),(\d+\.\d+)?,(\d+\.\d+)?,(\d\d)(\d\d)(\d\d),/;
const IMEI = /\d{15}/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1');
  const imei = IMEI.exec(s.slice(2)); // past the length
  if (!imei) return {};
  const deviceId = imei[0];
  const m = RMC.exec(s);
  if (!m) return { deviceId };
  const lat = nmeaCoordinate(m[5], m[6]);
  if (Math.abs(lat) > 90) return { deviceId };
  return {
    deviceId,
    records: [
      {
        time: utc(Number(m[13]), Number(m[12]), Number(m[11]), Number(m[1]), Number(m[2]), Number(m[3])),
        valid: m[4] === 'A',
        lat,
        lng: nmeaCoordinate(m[7], m[8]),
        speed: knotsToKmh(num(m[9]) ?? 0),
        course: (num(m[10]) ?? 0) % 360,
        attributes: {},
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'enfora',
  defaultPort: 5008,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => lengthFieldFramer('enfora', { offset: 0, size: 2, adjust: 0 }, MAX_FRAME),
  decode,
  commands: [],
};
