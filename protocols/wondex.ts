/**
 * Wondex / VSUN (and compatible) protocol.
 *
 *   keep-alive  8 bytes `D0 D7 .. .. <id u32 LE>`, echoed back as is
 *   report      `<id>,<yyyymmddhhmmss>,<lon>,<lat>,<km/h>,<course>,<altitude>,<satellites>,<event>[,<battery>V][,<odometer km>,<inputs>,<adc1>,<adc2>,<outputs>]\r\n`
 *   answers     `$OK:...`, `$ERR:...`, `$MSG:...` to commands
 * Commands: `$WP+<command>=<password>[,<params>]`.
 */
import { Attr, indexed } from './attributes.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { FrameError, type AttrValue, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const KEEP_ALIVE = 0xd0;
const ROLLOVER = 1024 * 7 * 86_400_000;

function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 8) return null;
      if (buffer[0] === KEEP_ALIVE) return { frame: buffer.subarray(0, 8), consumed: 8 };
      const end = buffer.indexOf('\r\n');
      if (end < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('wondex: no line end');
        return null;
      }
      return { frame: buffer.subarray(0, end), consumed: end + 2 };
    },
  };
}

const REPORT =
  /^\D*(\d+),(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),(-?\d+\.\d+),(-?\d+\.\d+),(\d+),(\d+),(-?\d+(?:\.\d*)?),(\d+),(\d+)(?:,(\d+\.\d+)V)?((?:,[^,]*){0,5})/;

interface Session {
  last?: LastFix;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const session = ctx.session as Session;
  if (frame[0] === KEEP_ALIVE) {
    if (frame.length < 8) return {};
    return { deviceId: String(frame.readUInt32LE(4)), reply: Buffer.from(frame.subarray(0, 8)) };
  }
  const s = frame.toString('latin1').trim();
  if (/^\$(OK|ERR|MSG):/.test(s)) {
    return { records: [withLastFix({ time: ctx.now, attributes: { [Attr.result]: s } }, session)] };
  }
  const m = REPORT.exec(s);
  if (!m) return {};
  const [, id, y, mo, d, h, mi, sec, lng, lat, speed, course, altitude, sats, event, battery, tail] = m;
  // after the event: mileage (km), inputs, AD1, AD2, outputs; any of them may be empty
  const [odometer, input, adc1, adc2, output] = tail.split(',').slice(1).map((v) => (/^\d+(?:\.\d+)?$/.test(v) ? v : undefined));
  const la = Number(lat);
  const lo = Number(lng);
  if (Math.abs(la) > 90 || Math.abs(lo) > 180) return { deviceId: id };
  const a: Record<string, AttrValue> = { [Attr.event]: Number(event) };
  if (battery !== undefined) a[Attr.battery] = Number(battery);
  if (odometer !== undefined) a[Attr.odometer] = Number(odometer) * 1000;
  if (input !== undefined && /^\d+$/.test(input)) a[Attr.input] = Number(input);
  if (adc1 !== undefined) a[indexed.adc(1)] = Number(adc1);
  if (adc2 !== undefined) a[indexed.adc(2)] = Number(adc2);
  if (output !== undefined && /^\d+$/.test(output)) a[Attr.output] = Number(output);
  let time = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec));
  // GNSS week-number rollover: receivers with an old almanac report dates 1024 weeks too early
  while (time < Date.UTC(2000, 0, 1) && time + ROLLOVER <= ctx.now + 86_400_000) time += ROLLOVER;
  const rec: DeviceRecord = {
    time,
    valid: Number(sats) > 0,
    lat: la,
    lng: lo,
    speed: Number(speed),
    course: Number(course) % 360,
    altitude: Number(altitude),
    satellites: Number(sats),
    attributes: a,
  };
  rememberFix(session, rec);
  return { deviceId: id, records: [rec] };
}

// ---- commands ---------------------------------------------------------------------------------

const COMMANDS: Record<string, string> = {
  positionSingle: 'GETLOCATION',
  getDeviceStatus: 'TEST',
  getVersion: 'VER',
  rebootDevice: 'REBOOT',
  identification: 'GETIMEI',
};

function encode(command: Command, _ctx: EncodeContext): Buffer {
  const password = String(command.attributes.devicePassword ?? '0000');
  if (command.type === 'custom') return Buffer.from(String(command.attributes.data ?? ''), 'latin1');
  const name = COMMANDS[command.type];
  if (!name) throw new Error(`wondex: unsupported command ${command.type}`);
  return Buffer.from(`$WP+${name}=${password}`, 'latin1');
}

export const protocol: Protocol = {
  name: 'wondex',
  defaultPort: 5032,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: ['custom', ...Object.keys(COMMANDS)],
  carriesText: false,
  encode,
};
