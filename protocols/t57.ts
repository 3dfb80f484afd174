/**
 * T57 text protocol: `*T57#F<type>#<device id>#<ddmmyy>#<hhmmss>#<ddmm.mmmm>#<N|S>#<dddmm.mmmm>#<E|W>#<extra>#
 * <knots>#<altitude>#<A|V><fix type>#<battery V>#` (F1 and F2 reports; F3 is shorter and carries no fix).
 * Messages have no end mark: the framer counts 14 `#` (12 for F3). The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { nmeaCoordinate, utc } from './text.ts';
import { FrameError, type DecodeContext, type DecodeResult, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const HASH = 0x23;
const REPORT = /^\*T57#F\d#([^#]+)#(\d\d)(\d\d)(\d\d)#(\d\d)(\d\d)(\d\d)#(\d{4}\.\d+)#([NS])#(\d{5}\.\d+)#([EW])#[^#]+#(\d+\.\d+)#(\d+\.\d+)#([AV])\d#(\d+\.\d+)#/;

function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 10) return null;
      let count = buffer.toString('latin1', 5, 7) === 'F3' ? 12 : 14;
      let i = 0;
      while (count > 0) {
        i = buffer.indexOf(HASH, i + 1);
        if (i < 0) {
          if (buffer.length > MAX_FRAME) throw new FrameError('t57: message too long');
          return null;
        }
        count--;
      }
      return { frame: buffer.subarray(0, i + 1), consumed: i + 1 };
    },
  };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1'));
  if (!m) return {};
  const [, id, dd, mo, yy, hh, mi, ss, lat, ns, lng, ew, speed, altitude, valid, battery] = m;
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: valid === 'A',
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew),
    speed: knotsToKmh(Number(speed)),
    altitude: Number(altitude),
    attributes: { [Attr.battery]: Number(battery) },
  };
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 't57',
  defaultPort: 5155,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
