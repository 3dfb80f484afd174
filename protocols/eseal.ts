/**
 * eSeal (electronic container seals) text protocol, frames `##S,...,E##`:
 *   ##S,<device type>,<id>,<customer>,<firmware>,<type>,<index>,<yyyy-MM-dd>,<HH:mm:ss>,<interval>,<A|V>,
 *   <lat><N|S> <lon><E|W>,<course>,<km/h>,<Open|Close>,<acceleration>,<nfc>,<battery V>,<rssi>,E##
 * Reports of the types below are acknowledged with `<the message up to its type><type> ACK,<index>,E##\r\n`;
 * a `Startup` acknowledgement also carries the configuration set for the protocol (setting `config`).
 * Commands: `RC-Unlock` (alarmDisarm), `RC-Power Control,Power OFF` (alarmArm), custom text.
 */
import { Alarm, Attr } from './attributes.ts';
import { latin1, utc } from './text.ts';
import { DecodeError, FrameError, type Command, type DecodeContext, type DecodeResult, type EncodeContext, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT =
  /^##S,[^,]+,(\d+),\d+,[^,]+,([^,]+),(\d+),(\d{4})-(\d\d)-(\d\d),(\d\d):(\d\d):(\d\d),\d+,([AV]),(\d+\.\d+)([NS]) (\d+\.\d+)([EW]),(\d+),(\d+),([^,]+),(\d+\.\d+),([^,]+),(\d+\.\d+),(-?\d+),E##/;
const ID = /^##S,[^,]+,(\d+),/;
const ALARMS: Record<string, string> = {
  'Event-Door': Alarm.door,
  'Event-Shock': Alarm.vibration,
  'Event-Drop': Alarm.fallDown,
  'Event-Lock': Alarm.lock,
  'Event-RC-Unlock': Alarm.unlock,
};
const ACKED = new Set(['Startup', 'Normal', 'Button-Normal', 'Termination', ...Object.keys(ALARMS)]);

/** Frames run from `##S` to `E##`. */
function createFramer(): Framer {
  return {
    next(buffer) {
      const start = buffer.indexOf('##S');
      if (start < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('eseal: no message start');
        return null;
      }
      const end = buffer.indexOf('E##', start + 3);
      if (end < 0) {
        if (buffer.length - start > MAX_FRAME) throw new FrameError('eseal: message too long');
        return null;
      }
      return { frame: buffer.subarray(start, end + 3), consumed: end + 3 };
    },
  };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1');
  const m = REPORT.exec(s);
  if (!m) {
    const id = ID.exec(s);
    return id ? { deviceId: id[1] } : {};
  }
  const [, deviceId, type, index] = m;
  const [lat, lng] = [Number(m[11]) * (m[12] === 'S' ? -1 : 1), Number(m[13]) * (m[14] === 'W' ? -1 : 1)];
  if (lat > 90 || lng > 180) throw new DecodeError('eseal: coordinates out of range');
  const a: Record<string, string | number | boolean> = { [Attr.index]: Number(index), [Attr.event]: type };
  if (ALARMS[type]) a[Attr.alarm] = ALARMS[type];
  if (m[17] === 'Open' || m[17] === 'Close') a[Attr.door] = m[17] === 'Open';
  Object.assign(a, { acceleration: Number(m[18]), nfc: m[19], [Attr.battery]: Number(m[20]), [Attr.rssi]: Number(m[21]) });
  let reply: Buffer | undefined;
  if (ACKED.has(type)) {
    const config = typeof ctx.config.config === 'string' ? `,${ctx.config.config}` : '';
    reply = latin1(`${s.slice(0, s.indexOf(`,${type},`) + 1)}${type} ACK,${index}${type === 'Startup' ? config : ''},E##\r\n`);
  }
  return {
    deviceId,
    records: [
      {
        time: utc(Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7]), Number(m[8]), Number(m[9])),
        valid: m[10] === 'A',
        lat,
        lng,
        course: Number(m[15]) % 360,
        speed: Number(m[16]),
        attributes: a,
      },
    ],
    ...(reply ? { reply } : {}),
  };
}

const COMMANDS: Record<string, (c: Command) => string> = {
  custom: (c) => String(c.attributes.data ?? ''),
  alarmArm: () => 'RC-Power Control,Power OFF',
  alarmDisarm: () => 'RC-Unlock',
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const body = COMMANDS[command.type];
  if (!body) throw new Error(`eseal: unsupported command ${command.type}`);
  return latin1(`##S,eSeal,${ctx.deviceId},256,3.0.8,${body(command)},E##`);
}

export const protocol: Protocol = {
  name: 'eseal',
  defaultPort: 5169,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  encode,
};
