/**
 * GNX text protocol (Indian buses and fleets), messages ending `*` then LF CR:
 *   `$GNX_<type>,<imei>,<length>,<0 live | 1 history>,<device hhmmss>,<ddmmyy>,<fix hhmmss>,<ddmmyy>,<valid 0|1>,
 *    <dd.dddddd>,<N|S>,<ddd.dddddd>,<E|W>,...`; a `MIF` (card reader) report follows with `<valid card>,<rfid>`.
 * Times are India Standard Time (UTC+05:30). A report without a fix yields nothing. No answer is expected.
 */
import { Attr } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const IST_OFFSET = (5 * 60 + 30) * 60_000;
const REPORT =
  /^\$GNX_(\w{3}),(\d+),\d+,([01]),\d{6},\d{6},(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(\d),(\d\d\.\d+),([NS]),(\d{3}\.\d+),([EW]),(?:([01]),([^,]+),)?/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const [, type, imei, history, hh, mi, ss, dd, mo, yy, valid, lat, ns, lng, ew, , rfid] = m;
  const rec: DeviceRecord = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss) - IST_OFFSET,
    valid: valid !== '0',
    lat: Number(lat) * (ns === 'S' ? -1 : 1),
    lng: Number(lng) * (ew === 'W' ? -1 : 1),
    attributes: { type },
  };
  if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('gnx: coordinates out of range');
  if (history === '1') rec.attributes[Attr.archive] = true;
  if (type === 'MIF' && rfid) rec.attributes[Attr.driverUniqueId] = rfid;
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'gnx',
  defaultPort: 5106,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('gnx', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
