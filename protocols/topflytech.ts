/**
 * Topflytech (T8803 and compatible, TK103-style) text protocol:
 * `(<id><command>...<yymmdd><hhmmss><A|V><ddmm.mmmm><N|S><dddmm.mmmm><E|W><speed ddd.d><course>...)`.
 * Devices expect no answer.
 */
import { bracketedFramer } from './text.ts';
import { knotsToKmh } from './binary.ts';
import { type DecodeContext, type DecodeResult, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;

const createFramer = (): Framer => bracketedFramer('topflytech', 0x28, 0x29, MAX_FRAME);

const REPORT = /^\((\d{1,20})[^)]*?(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)([AV])(\d\d)(\d\d\.\d{4})([NS])(\d{3})(\d\d\.\d{4})([EW])(\d{3}\.\d)(\d+\.\d+)/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1'));
  if (!m) return {};
  const [, id, yy, mo, dd, hh, mi, ss, validity, latD, latM, ns, lngD, lngM, ew, speed, course] = m;
  const lat = (Number(latD) + Number(latM) / 60) * (ns === 'S' ? -1 : 1);
  const lng = (Number(lngD) + Number(lngM) / 60) * (ew === 'W' ? -1 : 1);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId: id };
  return {
    deviceId: id,
    records: [
      {
        time: Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss)),
        valid: validity === 'A',
        lat,
        lng,
        speed: knotsToKmh(Number(speed)),
        course: Number(course) % 360,
        attributes: {},
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'topflytech',
  defaultPort: 5047,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  carriesText: false,
};
