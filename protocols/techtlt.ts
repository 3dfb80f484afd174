/**
 * TechTLT (UDP) text datagrams:
 *   `<id>*POS=Y,<hh:mm:ss>,<dd/mm/yy>,<ddmm.mmmm><N|S>,<dddmm.mmmm><E|W>,<km/h>,<course>,<altitude>,<satellites>,<lac>,<cid>`
 *   `<id>,INFOGPRS,V Bat=<V>,TEMP=<°C>,<x>,<rssi>` (a status record)
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { nmeaCoordinate, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const POSITION = /^(\d+)\*POS=Y,(\d\d):(\d\d):(\d\d),(\d\d)\/(\d\d)\/(\d\d),(\d{4}\.\d+)([NS]),(\d{5}\.\d+)([EW]),(\d+\.\d+),(\d+\.\d+),(\d+\.\d+),(\d+),(\d+),(\d+)/;
const STATUS = /^(\d+),INFOGPRS,V Bat=(\d+\.\d),TEMP=(\d+),[^,]*,(\d+)/;

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  let m = STATUS.exec(s);
  if (m) return { deviceId: m[1], records: [{ time: ctx.now, attributes: { [Attr.battery]: Number(m[2]), [Attr.deviceTemp]: Number(m[3]), [Attr.rssi]: Number(m[4]) } }] };
  m = POSITION.exec(s);
  if (!m) throw new DecodeError('techtlt: unknown message');
  const [, id, hh, mi, ss, dd, mo, yy, lat, ns, lng, ew, speed, course, altitude, sats, lac, cid] = m;
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: true,
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew),
    speed: Number(speed),
    course: Number(course) % 360,
    altitude: Number(altitude),
    satellites: Number(sats),
    attributes: { lac: Number(lac), cid: Number(cid) },
  };
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'techtlt',
  defaultPort: 5189,
  transports: ['udp'],
  maxFrameSize: 1024,
  decode,
  commands: [],
};
