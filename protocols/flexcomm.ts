/**
 * FlexComm text protocol: fixed 110-character reports
 *   `7E <status 2> <imei 15> <yyyymmdd><hhmmss> <valid 0|1> <lat 9> <lon 10> <altitude 4> <speed km/h 3>
 *    <course 3> <satellites in view 2> <used 2> <signal 2> <mcc 3> <mnc 3> <lac hex 6> <cid hex 6>
 *    <inputs 3×0|1> <outputs 2×0|1> <fuel 3> <temperature 4> <battery % 3> <supply 0.1 V 3> ...`
 * where the signed fields (latitude and longitude in 1e-6 degrees, altitude, temperature) lead with 1
 * for negative and 0 for positive. Every report is answered `{01}`.
 */
import { Attr, indexed } from './attributes.ts';
import { fixedLengthFramer } from './framers.ts';
import { latin1, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const FRAME = 110;
const ACK = latin1('{01}');
const REPORT = new RegExp(
  String.raw`^7E(\d\d)(\d{15})(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)([01])([01]\d{8})([01]\d{9})([01]\d{3})(\d{3})(\d{3})(\d\d)(\d\d)(\d\d)(\d{3})(\d{3})` +
    String.raw`([0-9A-F]{6})([0-9A-F]{6})([01])([01])([01])([01])([01])(\d{3})([01]\d{3})(\d{3})(\d{3})`,
  'i',
);

/** A signed field: first digit 1 = negative, the rest the value in units of 10^-decimals. */
const signed = (v: string, decimals: number): number => (v[0] === '1' ? -1 : 1) * (Number(v.slice(1)) / 10 ** decimals);

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1'));
  if (!m) throw new DecodeError('flexcomm: not a report');
  const [, status, imei, yy, mo, dd, hh, mi, ss, valid, lat, lng, altitude, speed, course, visible, used, rssi, mcc, mnc, lac, cid, in1, in2, in3, out1, out2, fuel, temp, battery, power] = m;
  const rec: DeviceRecord = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: valid === '1',
    lat: signed(lat, 6),
    lng: signed(lng, 6),
    altitude: signed(altitude, 0),
    speed: Number(speed),
    course: Number(course) % 360,
    satellites: Number(used),
    cells: [{ mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16) }],
    attributes: {
      [Attr.status]: Number(status),
      satellitesVisible: Number(visible),
      [Attr.rssi]: Number(rssi),
      [indexed.in(1)]: in1 === '1',
      [indexed.in(2)]: in2 === '1',
      [indexed.in(3)]: in3 === '1',
      [indexed.out(1)]: out1 === '1',
      [indexed.out(2)]: out2 === '1',
      [Attr.fuel]: Number(fuel),
      [indexed.temp(1)]: signed(temp, 0),
      [Attr.batteryLevel]: Number(battery),
      [Attr.power]: Number(power) / 10,
    },
  };
  if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('flexcomm: coordinates out of range');
  return { deviceId: imei, records: [rec], reply: ACK };
}

export const protocol: Protocol = {
  name: 'flexcomm',
  defaultPort: 5142,
  transports: ['tcp'],
  maxFrameSize: FRAME,
  createFramer: () => fixedLengthFramer(FRAME),
  decode,
  commands: [],
};
