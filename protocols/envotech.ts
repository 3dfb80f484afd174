/**
 * Envotech text protocol, messages cut at `#`:
 *   `$<mode 2><hardware 3>,<event hex>,<group hex>,<device id hex>,<ddmmyyhhmmss>,<connection 2 hex><rssi 2><mcc 5>,
 *    <power 3 x 0.01 V><battery 3 x 0.01 V>,<inputs hex 2><outputs hex 2>,[<fuel hex 3>][<weight hex 3>],<status hex 8>,
 *    ...'<ddmmyyhhmmss><fix digit><lat degrees + 5 decimals><N|S><lon degrees + 5 decimals><E|W><knots 3><course 3>...`
 * Events 0x60 and 0x61 are lock and unlock. The devices expect no answer.
 */
import { Alarm, Attr } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const MESSAGE =
  /^\$\d\d...,([0-9A-Fa-f]+),[0-9A-Fa-f]+,([0-9A-Fa-f]+),(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),[0-9A-Fa-f]{2}(\d\d)\d{5},(\d{3})(\d{3}),([0-9A-Fa-f]{2})([0-9A-Fa-f]{2}),([0-9A-Fa-f]{3})?([0-9A-Fa-f]{3})?,([0-9A-Fa-f]{8}),[^']*'(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d)(\d+)(\d{5})([NS])(\d+)(\d{5})([EW])(\d{3})(\d{3})/;
const EVENT_ALARMS: Record<number, string> = { 0x60: Alarm.lock, 0x61: Alarm.unlock };

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = MESSAGE.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('envotech: not a report');
  const [, event, id, , , , , , , rssi, power, battery, inputs, outputs, fuel, weight, status, dd, mo, yy, hh, mi, ss, fix, latD, latF, ns, lngD, lngF, ew, speed, course] = m;
  const code = parseInt(event, 16);
  const a: Record<string, number | string> = {
    [Attr.event]: code,
    [Attr.rssi]: Number(rssi),
    [Attr.power]: Number(power) / 100,
    [Attr.battery]: Number(battery) / 100,
    [Attr.input]: parseInt(inputs, 16),
    [Attr.output]: parseInt(outputs, 16),
    [Attr.status]: parseInt(status, 16),
  };
  if (EVENT_ALARMS[code]) a[Attr.alarm] = EVENT_ALARMS[code];
  if (fuel) a[Attr.fuel] = parseInt(fuel, 16);
  if (weight) a.weight = parseInt(weight, 16);
  const lat = Number(`${latD}.${latF}`) * (ns === 'S' ? -1 : 1);
  const lng = Number(`${lngD}.${lngF}`) * (ew === 'W' ? -1 : 1);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('envotech: coordinates out of range');
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: Number(fix) > 0,
    lat,
    lng,
    speed: knotsToKmh(Number(speed)),
    course: Number(course) % 360,
    attributes: a,
  };
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'envotech',
  defaultPort: 5240,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('envotech', [0x23], MAX_FRAME),
  decode,
  commands: [],
};
