/**
 * YWT text protocol, one message a line:
 *   `%<type>,<unit id>:<subtype>,<yymmddhhmmss>,<E|W><ddd.dddddd>,<N|S><dd.dddddd>,[<altitude>],<km/h>,<course>,
 *    <satellites>,<report id>,<status hex>[,...]`  (types GP, RP, KP, EP, ...)
 *   `%SN,<unit id>:...` synchronisation, answered `%AT+SN=` + the text from the `:` through four more fields.
 * KP and EP reports are answered `%AT+<type>=<report id>\r\n`. A fix with no satellites is not valid.
 */
import { Attr } from './attributes.ts';
import { delimitedFramer, latin1, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 2048;
const REPORT =
  /^%(..),(\d+):\d+,(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),([EW])(\d{3}\.\d{6}),([NS])(\d\d\.\d{6}),(\d+)?,(\d+),(\d+),(\d+),([^,]+),([-0-9a-fA-F]+)/;
const ACKED = new Set(['KP', 'EP']);

/** `%SN,...`: the answer repeats the text from the `:` up to the fourth comma after it (or the end). */
function syncReply(s: string): Buffer {
  const start = s.indexOf(':');
  let end = start;
  for (let i = 0; i < 4 && end >= 0; i++) end = s.indexOf(',', end + 1);
  return latin1(`%AT+SN=${s.slice(start, end < 0 ? s.length : end)}`);
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim().replace(/;$/, '');
  if (s.startsWith('%SN')) {
    if (s.indexOf(':') < 0) throw new DecodeError('ywt: bad synchronisation');
    return { reply: syncReply(s) };
  }
  const m = REPORT.exec(s);
  if (!m) throw new DecodeError('ywt: not a report');
  const [, type, id, yy, mo, dd, hh, mi, ss, ew, lng, ns, lat, altitude, speed, course, sats, reportId, status] = m;
  const satellites = Number(sats);
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: satellites !== 0,
    lat: Number(lat) * (ns === 'S' ? -1 : 1),
    lng: Number(lng) * (ew === 'W' ? -1 : 1),
    altitude: Number(altitude ?? 0),
    speed: Number(speed),
    course: Number(course) % 360,
    satellites,
    attributes: { type, [Attr.status]: status },
  };
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('ywt: coordinates out of range');
  return { deviceId: id, records: [rec], reply: ACKED.has(type) ? latin1(`%AT+${type}=${reportId}\r\n`) : undefined };
}

export const protocol: Protocol = {
  name: 'ywt',
  defaultPort: 5035,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('ywt', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
