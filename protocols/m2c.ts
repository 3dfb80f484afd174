/**
 * M2C text protocol: `[` then CRLF-separated report lines, the batch ending at `]`. A line:
 *   `#M2C,<model>,<firmware>,<protocol>,<imei>,<index>,<L live|H archived>,<priority>,<event>,<yymmdd>,
 *    <hhmmss>,<lat>,<lon>,<altitude>,<course>,<speed km/h>,<satellites>,<odometer>,<inputs>,<outputs>,
 *    <supply mV>,<battery mV>,<adc1>,<adc2>,<temperature>,...*<checksum>`
 * Lines that do not match are skipped. The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 65536;
const LINE =
  /^#M2C,[^,]+,[^,]+,\d+,(\d+),(\d+),([LH]),\d+,(\d+),(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(-?\d+\.\d+),(-?\d+\.\d+),(-?\d+),(\d+),(\d+\.\d+),(\d+),(\d+),(\d+),(\d+),(\d+),(\d+),(\d+),(\d+),(\d+\.?\d*),/;

function line(text: string): { imei: string; rec: DeviceRecord } | undefined {
  const m = LINE.exec(text);
  if (!m) return undefined;
  const [, imei, index, archive, event, yy, mo, dd, hh, mi, ss, lat, lng, altitude, course, speed, sats, odometer, input, output, power, battery, adc1, adc2, temp] = m;
  const rec: DeviceRecord = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: true,
    lat: Number(lat),
    lng: Number(lng),
    altitude: Number(altitude),
    course: Number(course) % 360,
    speed: Number(speed),
    satellites: Number(sats),
    attributes: {
      [Attr.index]: Number(index),
      [Attr.event]: Number(event),
      [Attr.odometer]: Number(odometer),
      [Attr.input]: Number(input),
      [Attr.output]: Number(output),
      [Attr.power]: Number(power) / 1000,
      [Attr.battery]: Number(battery) / 1000,
      [indexed.adc(1)]: Number(adc1),
      [indexed.adc(2)]: Number(adc2),
      [indexed.temp(1)]: Number(temp),
    },
  };
  if (archive === 'H') rec.attributes[Attr.archive] = true;
  if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('m2c: coordinates out of range');
  return { imei, rec };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const text = frame.toString('latin1').trimStart().replace(/^\[/, '').replace(/\]$/, '');
  const records: DeviceRecord[] = [];
  let deviceId: string | undefined;
  for (const l of text.split('\r\n')) {
    const r = l ? line(l) : undefined;
    if (!r) continue;
    deviceId ??= r.imei;
    if (r.imei === deviceId) records.push(r.rec);
  }
  return deviceId ? { deviceId, records } : {};
}

export const protocol: Protocol = {
  name: 'm2c',
  defaultPort: 5157,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('m2c', [0x5d], MAX_FRAME),
  decode,
  commands: [],
};
