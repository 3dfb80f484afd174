/**
 * Kenji text protocol, one report a line:
 *   `>C<id 6>,M<alarm hex 6>,O<outputs hex 4>,I<inputs hex 4>,D<hhmmss>,<A|V>,<N|S><ddmm.mmmm>,<E|W><dddmm.mmmm>,
 *    T<knots>,H<course>,Y<ddmmyy>,G<satellites>*<checksum>`
 * Alarm bits: 2 SOS, 4 low battery, 6 movement, 1/10/11 vibration. The devices expect no answer.
 */
import { Alarm, Attr } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT =
  /^>C(\d{6}),M([0-9A-Fa-f]{6}),O([0-9A-Fa-f]{4}),I([0-9A-Fa-f]{4}),D(\d\d)(\d\d)(\d\d),([AV]),([NS])(\d\d)(\d\d\.\d+),([EW])(\d{3})(\d\d\.\d+),T(\d+\.\d+),H(\d+\.\d+),Y(\d\d)(\d\d)(\d\d),G(\d+)/;

function alarm(v: number): string | undefined {
  if (v & (1 << 2)) return Alarm.sos;
  if (v & (1 << 4)) return Alarm.lowBattery;
  if (v & (1 << 6)) return Alarm.movement;
  if (v & ((1 << 1) | (1 << 10) | (1 << 11))) return Alarm.vibration;
  return undefined;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('kenji: not a report');
  const [, id, alarms, output, input, hh, mi, ss, valid, ns, latD, latM, ew, lngD, lngM, knots, course, dd, mo, yy, sats] = m;
  const a: Record<string, AttrValue> = { [Attr.output]: parseInt(output, 16), [Attr.input]: parseInt(input, 16) };
  const code = alarm(parseInt(alarms, 16));
  if (code) a[Attr.alarm] = code;
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: valid === 'A',
    lat: (Number(latD) + Number(latM) / 60) * (ns === 'S' ? -1 : 1),
    lng: (Number(lngD) + Number(lngM) / 60) * (ew === 'W' ? -1 : 1),
    speed: knotsToKmh(Number(knots)),
    course: Number(course) % 360,
    satellites: Number(sats),
    attributes: a,
  };
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('kenji: coordinates out of range');
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'kenji',
  defaultPort: 5102,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('kenji', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
