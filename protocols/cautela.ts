/**
 * Cautela text protocol, one report a line: `<type>,<imei>,<dd>,<mm>,<yy>,<lat>,<lon>,<hhmm>,...`.
 * The devices expect no answer.
 */
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = /^(\d+),(\d+),(\d\d),(\d\d),(\d\d),(-?\d+\.\d+),(-?\d+\.\d+),(\d\d)(\d\d),/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('cautela: not a report');
  const [, type, imei, dd, mo, yy, lat, lng, hh, mi] = m;
  const rec = { time: utc(+yy, +mo, +dd, +hh, +mi), valid: true, lat: Number(lat), lng: Number(lng), attributes: { type: Number(type) } };
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('cautela: coordinates out of range');
  return { deviceId: imei, records: [rec] };
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
