/**
 * Race Dynamics text protocol, one message a line:
 *   login `$GPRMC,12,<ddmmyy>,<hhmmss>,<imei>,`
 *   data  `$GPRMC,15,<nn>,<H|L>,#,` + records joined by `,#,#,`, each `<hhmmss>,<A|V>,<ddmm.mmmm>,<N|S>,<dddmm.mmmm>,<E|W>,
 *         <km/h>,<ddmmyy>,<altitude>,<satellites>,<ignition>,<index>,%,<ibutton>,<accel>,<decel>,<cruise>,<belt>,
 *         <wrong ibutton>,<power x 100>,<power status>,<battery x 100>,<panic>,<x>,<x>,<overspeed>,<limit>,<rpm>,
 *         <aux x 3>,<geofence>,<road type>,<ibutton count>,<over-driver>,...`
 * Both are answered `$GPRMC,<type>,<ddmmyy>,<hhmmss>,<imei>,\r\n` with the server's UTC time.
 */
import { Alarm, Attr } from './attributes.ts';
import { delimitedFramer, latin1, nmeaCoordinate, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 65536;
const MSG_LOGIN = 12;
const MSG_LOCATION = 15;
const LOGIN = /^\$GPRMC,\d+,\d{6},\d{6},(\d{15}),/;
const RECORD =
  /^(\d\d)(\d\d)(\d\d),([AV]),(\d{4}\.\d+),([NS]),(\d{5}\.\d+),([EW]),(\d+),(\d\d)(\d\d)(\d\d),(-?\d+),(\d+),([01]),(\d+),%,([^,]+),\d+,\d+,[01],[01],[01],(\d+),[01],(\d+),([01]),\d+,\d+,(\d),\d+,\d+,\d+,\d+,\d+,\d+,\d+,\d+,(\d),/;

const two = (n: number) => String(n).padStart(2, '0');

function answer(type: number, imei: string, now: number): Buffer {
  const d = new Date(now);
  const date = two(d.getUTCDate()) + two(d.getUTCMonth() + 1) + two(d.getUTCFullYear() % 100);
  const time = two(d.getUTCHours()) + two(d.getUTCMinutes()) + two(d.getUTCSeconds());
  return latin1(`$GPRMC,${type},${date},${time},${imei},\r\n`);
}

function record(data: string): DeviceRecord | undefined {
  const m = RECORD.exec(data);
  if (!m) return undefined;
  const [, hh, mi, ss, valid, lat, ns, lng, ew, speed, dd, mo, yy, altitude, sats, ignition, index, ibutton, power, battery, panic, overspeed, overDriver] = m;
  const rec: DeviceRecord = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: valid === 'A',
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew),
    speed: Number(speed),
    altitude: Number(altitude),
    satellites: Number(sats),
    attributes: { [Attr.ignition]: ignition === '1', [Attr.index]: Number(index), [Attr.driverUniqueId]: ibutton, [Attr.power]: Number(power) / 100, [Attr.battery]: Number(battery) / 100 },
  };
  if (overspeed !== '0') rec.attributes[Attr.alarm] = Alarm.overspeed;
  if (panic === '1') rec.attributes[Attr.alarm] = Alarm.sos;
  if (overDriver !== '0') rec.attributes.overDriver = Number(overDriver);
  return rec;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  if (!s.startsWith('$GPRMC,')) throw new DecodeError('racedynamics: not a message');
  const type = Number(s.slice(7, 9));
  if (type === MSG_LOGIN) {
    const m = LOGIN.exec(s);
    if (!m) throw new DecodeError('racedynamics: bad login');
    return { deviceId: m[1], reply: answer(type, m[1], ctx.now) };
  }
  if (type !== MSG_LOCATION || !ctx.deviceId) return {};
  const records = s
    .slice(17, s.length - 3)
    .split(',#,#,')
    .flatMap((d) => record(`${d},`) ?? []);
  return { records, reply: answer(type, ctx.deviceId, ctx.now) };
}

export const protocol: Protocol = {
  name: 'racedynamics',
  defaultPort: 5195,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('racedynamics', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
