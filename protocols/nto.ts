/**
 * NTO text reports, one per line:
 *
 *   `^<type>,<id>,<event>,<ddmmyy>,<hhmmss>,<A|V>,<N|S>,<ddmm.mmmm>,<E|W>,<dddmm.mmmm>,<speed km/h>,<course>,
 *    <status hex>,<mcc:mnc:lac:cid>,<zone>,,<unix time>,<gsm signal>,<checksum>`
 *
 * The fix time is the date and time fields. The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { delimitedFramer, nmeaFix, num, utc } from './text.ts';
import type { Cell, DecodeContext, DecodeResult, Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT =
  /^\^([A-Z]+),(\d+),([A-Z0-9]+),(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),([AV]),([NS]),(\d{4}\.\d+),([EW]),(\d{5}\.\d+),(\d+(?:\.\d+)?),(\d+(?:\.\d+)?),([0-9A-Fa-f]*),(\d+):(\d+):([0-9A-Fa-f]+):([0-9A-Fa-f]+)?,[^,]*,[^,]*,\d*,(\d*)/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const [, type, id, event, dd, mo, yy, hh, mi, ss, valid, ns, lat, ew, lon, speed, course, status, mcc, mnc, lac, cid, rssi] = m;
  const cells: Cell[] = [];
  if (cid !== undefined) cells.push({ mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 10), cid: parseInt(cid, 10) });
  const attributes: Record<string, string | number> = { type, [Attr.event]: event, [Attr.status]: status };
  const signal = num(rssi);
  if (signal !== undefined) attributes[Attr.rssi] = signal;
  const rec = nmeaFix(utc(+yy, +mo, +dd, +hh, +mi, +ss), valid, lat, ns, lon, ew, Number(speed), Number(course));
  rec.cells = cells;
  rec.attributes = attributes;
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'nto',
  defaultPort: 5250,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('nto', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
