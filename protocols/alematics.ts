/**
 * Alematics text reports, one a line, plus a binary heartbeat:
 *
 *   `$T,<type>,<index>,<imei>,<gps yyyymmddhhmmss>,<device yyyymmddhhmmss>,<lat>,<lon>,<km/h>,<course>,
 *    <altitude>,<hdop>,<satellites>,<inputs>,<outputs>,<adc V>,<power V>,<odometer>,` then either
 *   `0,$S,<text>` (a text message) or `<extra mask>,<extras...>`
 *   heartbeat `FA F8` + 10 bytes, echoed back as it came.
 * Extras by mask bit: 0 pulse counter 3, 1 power mV, 2 battery mV, 3 OBD km/h, 4 rpm, 5 signal,
 * 6 pulse counter 2, 7 magnetic rotation sensor rpm.
 */
import { Attr } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const HEARTBEAT = 0xfaf8;
const HEARTBEAT_LENGTH = 12;
const REPORT =
  /^\$T,(\d+),(\d+),(\d+),(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),\d{14},(-?\d+\.\d+),(-?\d+\.\d+),(\d+),(\d+),(-?\d+),(\d+\.\d),(\d+),(\d+),(\d+),(\d+\.\d+),(\d+\.\d+),(\d+),?(.*)$/;

/** Heartbeats are 12 bytes starting FA F8; everything else is a line. */
function createFramer(): Framer {
  const lines = delimitedFramer('alematics', [0x0a, 0x0d], MAX_FRAME);
  return {
    next(buffer) {
      if (buffer.length >= 2 && buffer.readUInt16BE(0) === HEARTBEAT) {
        return buffer.length < HEARTBEAT_LENGTH ? null : { frame: buffer.subarray(0, HEARTBEAT_LENGTH), consumed: HEARTBEAT_LENGTH };
      }
      return lines.next(buffer);
    },
  };
}

/** Extras by mask bit: attribute and conversion, or null for a value that is skipped. */
const EXTRAS: Array<[string, (v: number) => AttrValue] | null> = [
  null, // pulse counter 3
  [Attr.power, (v) => v / 1000],
  [Attr.battery, (v) => v / 1000],
  [Attr.obdSpeed, (v) => v],
  [Attr.rpm, (v) => v],
  [Attr.rssi, (v) => v],
  null, // pulse counter 2
  null, // magnetic rotation sensor rpm
];

function decodeExtras(tail: string, a: Record<string, AttrValue>): void {
  const [mask, ...data] = tail.split(',');
  if (!/^\d+$/.test(mask ?? '')) return;
  let i = 0;
  EXTRAS.forEach((extra, bit) => {
    if (!(Number(mask) & (1 << bit))) return;
    const v = data[i++];
    if (extra && v !== undefined && /^-?\d+$/.test(v)) a[extra[0]] = extra[1](Number(v));
  });
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (frame.length >= 2 && frame.readUInt16BE(0) === HEARTBEAT) return { reply: Buffer.from(frame) };
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('alematics: not a report');
  const [, type, index, imei, yy, mo, dd, hh, mi, ss, lat, lng, speed, course, altitude, hdop, sats, input, output, adc, power, odometer, tail] = m;
  const a: Record<string, AttrValue> = {
    type: Number(type),
    [Attr.index]: Number(index),
    [Attr.input]: Number(input),
    [Attr.output]: Number(output),
    adc1: Number(adc),
    [Attr.power]: Number(power),
    [Attr.odometer]: Number(odometer),
  };
  if (tail.startsWith('0,$S,')) a.text = tail.slice(5);
  else decodeExtras(tail, a);
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: true,
    lat: Number(lat),
    lng: Number(lng),
    speed: Number(speed),
    course: Number(course) % 360,
    altitude: Number(altitude),
    hdop: Number(hdop),
    satellites: Number(sats),
    attributes: a,
  };
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('alematics: coordinates out of range');
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'alematics',
  defaultPort: 5140,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
