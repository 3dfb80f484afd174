/**
 * TT8850 (a Queclink @Track variant with a binary lead-in): reports end with `$`:
 *   `00 04,<length hex>,<0|1>,GTxxx,<protocol version>,<imei>,<device name>,...,<gps accuracy>,<km/h>,<course>,
 *    <altitude>,<lon>,<lat>,<yyyymmddhhmmss>,<mcc>,<mnc>,<lac hex>,<cell hex>,...,<send time>,<count hex>`
 * The fields between the device name and the GPS accuracy vary by report, so the position is found by its
 * shape (longitude, latitude and a 14-digit time in a row). A report without a position yields nothing.
 * The devices expect no answer.
 */
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 2048;
const LON = /^-?\d{1,3}\.\d{6}$/;
const LAT = /^-?\d{1,2}\.\d{6}$/;
const TIME = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/;
const num = (v: string | undefined): number => (v && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : 0);

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const f = frame.toString('latin1').replace(/\$$/, '').split(',');
  if (f[0] !== '\x00\x04' || !/^GT[A-Z]{3}$/.test(f[3] ?? '') || !f[5]) throw new DecodeError('tt8850: not a report');
  const deviceId = f[5];
  let i = 7;
  while (i + 2 < f.length && !(LON.test(f[i]) && LAT.test(f[i + 1]) && TIME.test(f[i + 2]))) i++;
  if (i + 2 >= f.length || i < 10) return { deviceId };
  const t = TIME.exec(f[i + 2])!;
  const rec: DeviceRecord = {
    time: utc(+t[1], +t[2], +t[3], +t[4], +t[5], +t[6]),
    valid: true,
    lat: Number(f[i + 1]),
    lng: Number(f[i]),
    hdop: num(f[i - 4]),
    speed: num(f[i - 3]),
    course: num(f[i - 2]) % 360,
    altitude: num(f[i - 1]),
    attributes: { type: f[3].slice(2) },
  };
  if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('tt8850: coordinates out of range');
  const [mcc, mnc, lac, cid] = f.slice(i + 3, i + 7);
  if (/^0\d{3}$/.test(mcc ?? '') && /^0\d{3}$/.test(mnc ?? '') && /^[0-9A-Fa-f]{4}$/.test(lac ?? '') && /^[0-9A-Fa-f]{4}$/.test(cid ?? '')) {
    rec.cells = [{ mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16) }];
  }
  return { deviceId, records: [rec] };
}

export const protocol: Protocol = {
  name: 'tt8850',
  defaultPort: 5079,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('tt8850', [0x24], MAX_FRAME),
  decode,
  commands: [],
};
