/**
 * Visiontek (VAJRA, VMC and other Indian AIS-style units) text reports, one line each:
 *   $1,<identifier>[,<imei>],dd,MM,yy,HH,mm,ss,<lat>,<lon>,<km/h>,<course>,[<layout 1 | layout 2>,]...,<A|V>[,<rfid>]
 * Coordinates are `ddmm.mmmm` (the dot may be missing) or decimal degrees, each with its hemisphere;
 * reports without a hemisphere carry no fix. The speed is read with its dot removed, in 0.1 km/h.
 *   layout 1: altitude, satellites, odometer km, ignition, input 1, input 2, immobilizer, external power, GSM
 *   layout 2: HDOP, altitude, odometer km, inputs 1..4, outputs 1..4, analog 1, analog 2
 * The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { degMin, delimitedFramer, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = new RegExp(
  [
    '^\\$1,([^,]+),(?:(\\d+),)?(\\d\\d),(\\d\\d),(\\d\\d),(\\d\\d),(\\d\\d),(\\d\\d),',
    '(?:(\\d\\d)(\\d\\d)\\.?(\\d+)([NS]),(\\d{3})(\\d\\d)\\.?(\\d+)([EW]),|(\\d\\d\\.\\d+)([NS]),(\\d{3}\\.\\d+)([EW]),)',
    '(\\d+\\.?\\d+),(\\d+),',
    '(?:(\\d+),(\\d+),(\\d+),([01]),([01]),([01]),([01]),([01]),(\\d+),|(\\d+\\.\\d),(\\d+),(\\d+),([01],[01],[01],[01]),([01],[01],[01],[01]),(\\d+\\.?\\d*),(\\d+\\.?\\d*),)?',
    '.*([AV])(?:,(\\d{10}))?',
  ].join(''),
);

const signed = (v: string, hem: string) => (hem === 'S' || hem === 'W' ? -Number(v) : Number(v));
const flags = (s: string) => s.split(',').map((v) => v === '1');

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1'));
  if (!m) return {};
  const deviceId = m[2] && m[2].length >= 10 ? m[2] : m[1];
  const lat = m[9] ? degMin(m[9], m[10], m[11], m[12]) : signed(m[17], m[18]);
  const lng = m[9] ? degMin(m[13], m[14], m[15], m[16]) : signed(m[19], m[20]);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId };
  const rec: DeviceRecord = {
    time: utc(Number(m[5]), Number(m[4]), Number(m[3]), Number(m[6]), Number(m[7]), Number(m[8])),
    lat,
    lng,
    speed: Number(m[21].replace('.', '')) / 10,
    course: Number(m[22]) % 360,
    valid: m[39] === 'A',
    attributes: {},
  };
  const a = rec.attributes;
  if (m[23] !== undefined) {
    rec.altitude = Number(m[23]);
    rec.satellites = Number(m[24]);
    a[Attr.odometer] = Number(m[25]) * 1000;
    a[Attr.ignition] = m[26] === '1';
    a[indexed.in(1)] = m[27] === '1';
    a[indexed.in(2)] = m[28] === '1';
    a[Attr.blocked] = m[29] === '1';
    a[Attr.charge] = m[30] === '1';
    a[Attr.rssi] = Number(m[31]);
  } else if (m[32] !== undefined) {
    rec.hdop = Number(m[32]);
    rec.altitude = Number(m[33]);
    a[Attr.odometer] = Number(m[34]) * 1000;
    flags(m[35]).forEach((v, i) => (a[indexed.in(i + 1)] = v));
    flags(m[36]).forEach((v, i) => (a[indexed.out(i + 1)] = v));
    a[indexed.adc(1)] = Number(m[37]);
    a[indexed.adc(2)] = Number(m[38]);
  }
  if (m[40] && !/^0+$/.test(m[40])) a[Attr.driverUniqueId] = m[40];
  return { deviceId, records: [rec] };
}

export const protocol: Protocol = {
  name: 'visiontek',
  defaultPort: 5069,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('visiontek', [0x0d, 0x0a], MAX_FRAME),
  decode,
  commands: [],
};
