/**
 * STL060 (Sinotrack/iTrack AIS-style units) text reports:
 *   $1,<imei>,D001,<vehicle>,<dd/MM/yy>,<HH:mm:ss>,<ddmm[.]mmmm><N|S>,<dddmm[.]mmmm><E|W>,<speed kn>,<course>,
 *   older: <odometer>,<ignition>,<in 1>,<in 2>,<fuel %>,<A|V>
 *   newer: <charging>,<ignition>,0,0,<inputs>,<rfid>,<odometer>,<temperature>,<fuel %>,<accelerometer>,<out 1>,<out 2>,<A|V>
 * The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { degMin, delimitedFramer, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = new RegExp(
  '\\$1,(\\d+),D001,[^,]*,(\\d\\d)/(\\d\\d)/(\\d\\d),(\\d\\d):(\\d\\d):(\\d\\d),(\\d\\d)(\\d\\d)\\.?(\\d+)([NS]),(\\d{3})(\\d\\d)\\.?(\\d+)([EW]),(\\d+\\.?\\d*),(\\d+\\.?\\d*),' +
    '(?:(\\d+),(\\d+),(\\d+),(\\d+),(\\d+),|([01]),([01]),0,0,(\\d+),([^,]+),(\\d+),(\\d+),(\\d+),([01]),([01]),([01]),)([AV])',
);

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1'));
  if (!m) return {};
  const lat = degMin(m[8], m[9], m[10], m[11]);
  const lng = degMin(m[12], m[13], m[14], m[15]);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId: m[1] };
  const a: DeviceRecord['attributes'] = {};
  if (m[18] !== undefined) {
    Object.assign(a, { [Attr.odometer]: Number(m[18]), [Attr.ignition]: m[19] === '1', [Attr.input]: (Number(m[20]) & 1) | ((Number(m[21]) & 1) << 1), [Attr.fuelLevel]: Number(m[22]) });
  } else {
    Object.assign(a, {
      [Attr.charge]: m[23] === '1',
      [Attr.ignition]: m[24] === '1',
      [Attr.input]: Number(m[25]),
      [Attr.odometer]: Number(m[27]),
      [indexed.temp(1)]: Number(m[28]),
      [Attr.fuelLevel]: Number(m[29]),
      acceleration: m[30] === '1',
      [Attr.output]: Number(m[31]) | (Number(m[32]) << 1),
    });
    if (!/^0+$/.test(m[26])) a[Attr.driverUniqueId] = m[26];
  }
  return {
    deviceId: m[1],
    records: [
      {
        time: utc(Number(m[4]), Number(m[3]), Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7])),
        valid: m[33] === 'A',
        lat,
        lng,
        speed: knotsToKmh(Number(m[16])),
        course: Number(m[17]) % 360,
        attributes: a,
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'stl060',
  defaultPort: 5060,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('stl060', [0x0d, 0x0a], MAX_FRAME),
  decode,
  commands: [],
};
