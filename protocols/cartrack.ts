/**
 * CarTrack text protocol, messages cut at `##`:
 *   `$$<device id>?...&A<command 4>&B<hhmmss.sss>,<A|V>,<ddmm.mmmm>,<N|S>,<dddmm.mmmm>,<E|W>,[<knots>],[<course>],
 *    <ddmmyy>...&C<io>&D<odometer>&E<alarm>[&Y<adc>]`
 * The odometer is hex written with the digits `:;<=>?` for A-F. The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { nmeaFix } from './text.ts';
import { FrameError, type DecodeContext, type DecodeResult, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const END = Buffer.from('##');
const MESSAGE =
  /^\$\$(\d+)\?*&A(\d{4})&B(\d\d)(\d\d)(\d\d)\.(\d{3}),([AV]),(\d{4}\.\d{4}),([NS]),(\d{5}\.\d{4}),([EW]),(\d+\.\d*)?,(\d+\.\d*)?,(\d\d)(\d\d)(\d\d).*?&C([^&]*)&D([^&]*)&E([^&]*)(?:&Y([^&]*))?/;

function createFramer(): Framer {
  return {
    next(buffer) {
      const end = buffer.indexOf(END);
      if (end < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('cartrack: no ##');
        return null;
      }
      return { frame: buffer.subarray(0, end), consumed: end + END.length };
    },
  };
}

/** Hex digits above 9 are sent as the ASCII characters after '9'. */
const shiftedHex = (s: string): number | undefined => {
  const hex = s.replace(/[:;<=>?]/g, (c) => 'ABCDEF'[c.charCodeAt(0) - 0x3a]);
  return /^[0-9A-F]+$/.test(hex) ? parseInt(hex, 16) : undefined;
};

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = MESSAGE.exec(frame.toString('latin1'));
  if (!m) return {};
  const [, id, command, hh, mi, ss, ms, valid, lat, ns, lng, ew, knots, course, dd, mo, yy, io, odometer, , adc] = m;
  const a: Record<string, string | number> = { command, [indexed.io(1)]: io };
  const odo = shiftedHex(odometer);
  if (odo !== undefined) a[Attr.odometer] = odo;
  if (adc !== undefined) a[indexed.adc(1)] = adc;
  const rec = { ...nmeaFix({ dd, mo, yy, hh, mi, ss, ms, valid, lat, ns, lng, ew, knots, course }), attributes: a };
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'cartrack',
  defaultPort: 5061,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
