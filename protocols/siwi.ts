/**
 * Siwi (SIWI / RTPL / EIT) text reports, one line each, ending with `!` or not:
 *
 *   `$SIWI,<id>,<unit no>,<reason>,<cmd code>,<cmd value>,<ignition>,<power cut>,<flags>,<x>,<odometer>,
 *    <km/h>,<satellites>,<A|V>,<lat>,<lon>,<alt>,<course>,<hhmmss>,<ddmmyy>,<signal>,<gsm status>,
 *    <error>,<internal status>,<battery mV>,<adc / 100>,<inputs>,<sensor1..4>,<hw version>,<sw version>,...`
 * The time is India Standard Time (UTC+05:30): the devices are sold there and send local time.
 * The device expects no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { delimitedFramer, num, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const IST_OFFSET = (5 * 60 + 30) * 60_000;
const HEADER = /^\$[A-Z]+$/;
const COORD = /^-?\d+\.\d+$/;

/** Whole non-negative integer field, or a decode error. */
function int(f: string[], i: number, what: string): number {
  if (!/^\d+$/.test(f[i] ?? '')) throw new DecodeError(`siwi: bad ${what}`);
  return Number(f[i]);
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const f = frame.toString('latin1').replace(/[!\r\n]+$/, '').split(',');
  if (f.length < 33 || !HEADER.test(f[0]) || !/^\d+$/.test(f[1])) throw new DecodeError('siwi: not a report');
  if (!COORD.test(f[14]) || !COORD.test(f[15]) || !/^[AV]$/.test(f[13])) throw new DecodeError('siwi: bad position');
  const t = /^(\d\d)(\d\d)(\d\d)$/.exec(f[18]);
  const d = /^(\d\d)(\d\d)(\d\d)$/.exec(f[19]);
  if (!t || !d) throw new DecodeError('siwi: bad time');
  const lat = Number(f[14]);
  const lng = Number(f[15]);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('siwi: coordinates out of range');
  const rec: DeviceRecord = {
    time: utc(+d[3], +d[2], +d[1], +t[1], +t[2], +t[3]) - IST_OFFSET,
    valid: f[13] === 'A',
    lat,
    lng,
    altitude: num(f[16]) ?? 0,
    speed: int(f, 11, 'speed'),
    course: int(f, 17, 'course') % 360,
    satellites: int(f, 12, 'satellites'),
    attributes: {
      [Attr.event]: f[3],
      [Attr.ignition]: f[6] === '1',
      [Attr.odometer]: int(f, 10, 'odometer'),
      [Attr.rssi]: int(f, 20, 'signal'),
      [Attr.battery]: int(f, 24, 'battery') / 1000,
      [indexed.adc(1)]: int(f, 25, 'adc') / 100,
      [Attr.input]: int(f, 26, 'inputs'),
      versionHw: f[31],
      versionFw: f[32],
    },
  };
  for (let i = 1; i <= 4; i++) {
    const v = int(f, 26 + i, 'sensor');
    if (v) rec.attributes[indexed.io(i)] = v;
  }
  return { deviceId: f[1], records: [rec] };
}

export const protocol: Protocol = {
  name: 'siwi',
  defaultPort: 5135,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('siwi', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
