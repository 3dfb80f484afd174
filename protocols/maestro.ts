/**
 * Maestro (M2M gateways, UPV-02) text reports ending with `!` (some firmware adds a NUL):
 *   @<imei>,<index>,<profile>,<valid 0|1>,<battery V>,<gsm>,<external power 0|1>,<ignition 0|1>,
 *   <yy/MM/dd>,<HH:mm:ss>,<lat>,<lon>,<altitude>,<speed mph>,<course>,<sats>,<hdop>,<odometer miles>[,<adc>]!
 * The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const MPH = 1.609344;
const REPORT =
  /^@(\d+),\d+,[^,]+,([01]),(\d+\.\d+),(\d+),([01]),([01]),(\d\d)\/(\d\d)\/(\d\d),(\d\d):(\d\d):(\d\d),(-?\d+\.\d+),(-?\d+\.\d+),(\d+\.?\d*),(\d+\.?\d*),(\d+\.?\d*),(\d+),(\d+\.?\d*),(\d+\.?\d*)(?:,(\d+))?/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1');
  const m = REPORT.exec(s.slice(Math.max(0, s.indexOf('@')))); // past the NUL that follows a `!` on some firmware
  if (!m) return {};
  const [lat, lng] = [Number(m[13]), Number(m[14])];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('maestro: coordinates out of range');
  const a: DeviceRecord['attributes'] = {
    [Attr.battery]: Number(m[3]),
    [Attr.rssi]: Number(m[4]),
    [Attr.charge]: m[5] === '1',
    [Attr.ignition]: m[6] === '1',
    [Attr.odometer]: Math.round(Number(m[20]) * MPH * 1000),
  };
  if (m[21] !== undefined) a[indexed.adc(1)] = Number(m[21]);
  return {
    deviceId: m[1],
    records: [
      {
        time: utc(Number(m[7]), Number(m[8]), Number(m[9]), Number(m[10]), Number(m[11]), Number(m[12])),
        valid: m[2] === '1',
        lat,
        lng,
        altitude: Number(m[15]),
        speed: Number(m[16]) * MPH,
        course: Number(m[17]) % 360,
        satellites: Number(m[18]),
        hdop: Number(m[19]),
        attributes: a,
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'maestro',
  defaultPort: 5129,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('maestro', [0x21], MAX_FRAME, true),
  decode,
  commands: [],
};
