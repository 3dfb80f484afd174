/**
 * TechtoCruz text protocol: `$$A<length>,<fields>,*<checksum>`, where the length counts the characters
 * after `$$A`. Reports: <imei>,<yyMMddHHmmss>,<A|V>,<maker>,<plate>,<km/h>,<odometer>,<lat>,<N|S>,<lon>,
 * <E|W>,<altitude>,<course>,<sats>,<rssi>,<supply V>,<battery V>,<charging>,<speed sensor>,<gps>,
 * <ignition>,<overspeed>,...; `RESPO|...` answers carry no fix. The devices expect no answer.
 */
import { Alarm, Attr } from './attributes.ts';
import { utc } from './text.ts';
import { FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 2048;
const REPORT =
  /^\$\$A\d+,(\d+),(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),([AV]),[^,]+,([^,]+),(\d+\.\d+),(\d+),(-?\d+\.\d+),[NS],(-?\d+\.\d+),[WE],(-?\d+\.\d+),(\d+\.\d+),(\d+),(\d+),(\d+\.\d+),(\d+\.\d+),([01]),[01],[01],([01]),([01]),/;

function createFramer(): Framer {
  return {
    next(buffer) {
      const start = buffer.indexOf('$$A');
      if (start < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('techtocruz: no message start');
        return null;
      }
      const comma = buffer.indexOf(0x2c, start + 3);
      if (comma < 0) {
        if (buffer.length - start > 8) throw new FrameError('techtocruz: bad length');
        return null;
      }
      const text = buffer.toString('latin1', start + 3, comma);
      if (!/^\d{1,4}$/.test(text) || Number(text) > MAX_FRAME) throw new FrameError('techtocruz: bad length');
      const end = start + 3 + Number(text);
      if (end <= comma) throw new FrameError('techtocruz: bad length');
      return buffer.length < end ? null : { frame: buffer.subarray(start, end), consumed: end };
    },
  };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1'));
  if (!m) return {};
  const [lat, lng] = [Number(m[12]), Number(m[13])];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId: m[1] };
  const a: DeviceRecord['attributes'] = {
    registration: m[9],
    [Attr.odometer]: Number(m[11]),
    [Attr.rssi]: Number(m[17]),
    [Attr.power]: Number(m[18]),
    [Attr.battery]: Number(m[19]),
    [Attr.charge]: m[20] === '1',
    [Attr.ignition]: m[21] === '1',
  };
  if (m[22] === '1') a[Attr.alarm] = Alarm.overspeed;
  return {
    deviceId: m[1],
    records: [
      {
        time: utc(Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7])),
        valid: m[8] === 'A',
        lat,
        lng,
        speed: Number(m[10]),
        altitude: Number(m[14]),
        course: Number(m[15]) % 360,
        satellites: Number(m[16]),
        attributes: a,
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'techtocruz',
  defaultPort: 5234,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
