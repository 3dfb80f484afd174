/**
 * Raveon `$PRAVE` location-status sentences (M7 GX, RV-M7, RF-7800W, Atlas PL), one per line:
 *
 *   `$PRAVE,<from id>,<to id>,<±ddmm.mmmm>,<±dddmm.mmmm>,<hhmmss>,<gps 0|1|2>,<satellites>,<altitude m>,
 *    <temperature °C>,<voltage>,<inputs hex digit>,<rssi dBm>,<speed km/h>,<heading>,<status letter>,[<odometer>]*<checksum>`
 *
 * Fields as Raveon's manuals list them. The sentence carries no date: the time goes on the day
 * nearest to arrival. The radios expect no answer.
 */
import { Alarm, Attr } from './attributes.ts';
import { nmeaDegrees } from './binary.ts';
import { delimitedFramer, num, timeOfDay } from './text.ts';
import type { AttrValue, DecodeContext, DecodeResult, Protocol } from './types.ts';

const MAX_FRAME = 1024;
const SENTENCE =
  /^\$PRAVE,(\d+),(\d+),(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?),(\d\d)(\d\d)(\d\d),(\d),(\d+),(-?[\d.]*),(-?[\d.]*),([\d.]*),([0-9A-Fa-f]*),(-?\d*),(\d*),(\d*),([A-Z]*),([\d.]*)/;

/** Status letters the manuals list, as alarms; `P` proximity and `S` service are kept as `status` only. */
const STATUS_ALARMS: Record<string, string> = { M: Alarm.fallDown, A: Alarm.general, C: Alarm.sos, I: Alarm.accident, V: Alarm.vibration };

const signedNmea = (v: string): number => (v.startsWith('-') ? -nmeaDegrees(Number(v.slice(1))) : nmeaDegrees(Number(v)));

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const m = SENTENCE.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const [, from, , lat, lon, hh, mi, ss, gps, sats, altitude, temp, voltage, io, rssi, speed, heading, status, odometer] = m;
  const latitude = signedNmea(lat);
  const lng = signedNmea(lon);
  if (Math.abs(latitude) > 90 || Math.abs(lng) > 180) return { deviceId: from };
  const attributes: Record<string, AttrValue> = {};
  const put = (key: string, value: number | undefined) => {
    if (value !== undefined) attributes[key] = value;
  };
  put(Attr.deviceTemp, num(temp));
  put(Attr.power, num(voltage));
  put(Attr.input, io ? parseInt(io, 16) : undefined);
  put(Attr.rssi, num(rssi));
  put(Attr.odometer, num(odometer));
  if (status) {
    attributes[Attr.status] = status;
    const alarm = STATUS_ALARMS[status[0]];
    if (alarm) attributes[Attr.alarm] = alarm;
  }
  return {
    deviceId: from,
    records: [
      {
        time: timeOfDay(ctx.now, +hh, +mi, +ss),
        valid: gps !== '0',
        lat: latitude,
        lng,
        altitude: num(altitude),
        speed: num(speed),
        course: num(heading),
        satellites: Number(sats),
        attributes,
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'raveon',
  defaultPort: 5117,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('raveon', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
