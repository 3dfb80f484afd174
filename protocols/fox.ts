/**
 * FOX XML protocol: `<fox><gps id="<id>" data="<fields>"/></fox>` where data is
 *   `<status id>,<A|V>,<ddmmyy>,<hhmmss>,<ddmm.mmmm>,<N|S>,<dddmm.mmmm>,<E|W>,[<km/h>],[<course>],<cell>,
 *    <inputs bits> <power / 10> <temperature> <rpm> <fuel> <adc1> <adc2> <outputs bits> <odometer>,<status data>`
 * Messages end at `</fox>`. The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { nmeaCoordinate, utc } from './text.ts';
import { FrameError, type DecodeContext, type DecodeResult, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 2048;
const END = Buffer.from('</fox>');
const DATA =
  /^(\d+),([AV]),(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(\d{4}\.\d+),([NS]),(\d{5}\.\d+),([EW]),(\d+\.?\d*)?,(\d+\.?\d*)?,[^,]*,([01]+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) ([01]+) (\d+),(.+)$/;

function createFramer(): Framer {
  return {
    next(buffer) {
      const end = buffer.indexOf(END);
      if (end < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('fox: no </fox>');
        return null;
      }
      return { frame: buffer.subarray(0, end + END.length), consumed: end + END.length };
    },
  };
}

const ID = /\bid="([^"]*)"/;
const DATA_ATTRIBUTE = /\bdata="([^"]*)"/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const xml = frame.toString('latin1');
  const id = ID.exec(xml)?.[1];
  const data = DATA_ATTRIBUTE.exec(xml)?.[1];
  if (!id || !data) return {};
  const m = DATA.exec(data);
  if (!m) return { deviceId: id };
  const [, status, valid, dd, mo, yy, hh, mi, ss, lat, ns, lng, ew, speed, course, input, power, temp, rpm, fuel, adc1, adc2, output, odometer, statusData] = m;
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: valid === 'A',
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew),
    speed: Number(speed ?? 0),
    course: Number(course ?? 0) % 360,
    attributes: {
      [Attr.status]: Number(status),
      [Attr.input]: parseInt(input, 2),
      [Attr.power]: Number(power) / 10,
      [indexed.temp(1)]: Number(temp),
      [Attr.rpm]: Number(rpm),
      [Attr.fuel]: Number(fuel),
      [indexed.adc(1)]: Number(adc1),
      [indexed.adc(2)]: Number(adc2),
      [Attr.output]: parseInt(output, 2),
      [Attr.odometer]: Number(odometer),
      statusData,
    },
  };
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'fox',
  defaultPort: 5105,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
