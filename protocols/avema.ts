/**
 * Avema text protocol, one report a line:
 *   `<id>,<yyyymmddhhmmss>,<lon>,<lat>,<km/h>,<course>,<altitude>,<satellites>,<event>,<odometer km>,<inputs>,
 *    <adc1>[V],<adc2>[V],<outputs>,<roaming 0|1>,<rssi>,<network>,<mcc>[-]<mnc>,<lac hex>,<cid hex>,[<battery V>,][<rfid>]...`
 * The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT =
  /^(\d+),(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),(-?\d+\.\d+),(-?\d+\.\d+),(\d+),(\d+),(-?\d+),(\d+),(\d+),(\d+\.\d+),(\d+),(\d+\.\d+)V?,(\d+\.\d+)V?,(\d+),(\d),(\d+),\d,(\d{3})-?(\d+),([0-9A-Fa-f]+),([0-9A-Fa-f]+),(?:(\d+\.\d+),)?([^,]+)?/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('avema: not a report');
  const [, id, yy, mo, dd, hh, mi, ss, lng, lat, speed, course, altitude, sats, event, odometer, input, adc1, adc2, output, roaming, rssi, mcc, mnc, lac, cid, battery, rfid] = m;
  const a: Record<string, AttrValue> = {
    [Attr.event]: Number(event),
    [Attr.odometer]: Number(odometer) * 1000,
    [Attr.input]: Number(input),
    [indexed.adc(1)]: Number(adc1),
    [indexed.adc(2)]: Number(adc2),
    [Attr.output]: Number(output),
    roaming: roaming === '1',
  };
  if (battery !== undefined) a[Attr.battery] = Number(battery);
  if (rfid !== undefined) a[Attr.driverUniqueId] = rfid;
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: true,
    lat: Number(lat),
    lng: Number(lng),
    speed: Number(speed),
    course: Number(course) % 360,
    altitude: Number(altitude),
    satellites: Number(sats),
    cells: [{ mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16), rssi: Number(rssi) }],
    attributes: a,
  };
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('avema: coordinates out of range');
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'avema',
  defaultPort: 5171,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('avema', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
