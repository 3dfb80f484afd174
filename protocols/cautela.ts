/**
 * Cautela text reports, one per line:
 *
 *   `<type>,<id>,<yy>,<mm>,<dd>,<lat>,<lon>,<hhmm>,<status>,*<checksum>`
 *
 * Decimal degrees, UTC. The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import type { DecodeContext, DecodeResult, Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = /^(\d+),(\d+),(\d\d),(\d\d),(\d\d),(-?\d+\.\d+),(-?\d+\.\d+),(\d\d)(\d\d),([A-Z]?),/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const [, type, id, yy, mo, dd, lat, lon, hh, mi, status] = m;
  const latitude = Number(lat);
  const lng = Number(lon);
  if (Math.abs(latitude) > 90 || Math.abs(lng) > 180) return { deviceId: id };
  const attributes: Record<string, string | number> = { [Attr.event]: Number(type) };
  if (status) attributes[Attr.status] = status;
  return { deviceId: id, records: [{ time: utc(+yy, +mo, +dd, +hh, +mi), valid: true, lat: latitude, lng, attributes }] };
}

export const protocol: Protocol = {
  name: 'cautela',
  defaultPort: 5160,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('cautela', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
