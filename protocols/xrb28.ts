/**
 * XRB28 (Omni and other shared e-scooter / bike locks) text protocol, `#`-terminated:
 *   device  `*<SCOR|HBCR>,<vendor>,<imei>,<type>,<values...>#`
 *   server  `\xff\xff*SCOS,<vendor>,<imei>,<type>[,<values...>]#\n`
 * `D0`/`D1` carry a fix (time, validity, NMEA lat/lon, satellites, HDOP, date, altitude);
 * `Q0`/`H0` status (battery 0.01 V, level %, GSM, lock state), `W0` alarms, `E0` faults, `S1` events;
 * the rest are answers to commands. Lock/unlock reports (`L0`, `L1`), alarms (`W0`) and `E1` are
 * acknowledged with the server header echoing vendor, IMEI and type.
 */
import { Alarm, Attr } from './attributes.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { delimitedFramer, latin1, nmeaCoordinate, utc } from './text.ts';
import { type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const HEAD = /^\*([A-Z]{4}),([^,]{2}),(\d{15}),([A-Z0-9]{2})(?:,(.*))?#?$/;
const FIX = /^[01],(\d\d)(\d\d)(\d\d)\.\d+,([AV]),(\d{4}\.\d+),([NS]),(\d{5}\.\d+),([EW]),(\d+),(\d+\.\d+),(\d\d)(\d\d)(\d\d),(-?\d+\.?\d*),.,.$/;
const ACKED = new Set(['L0', 'L1', 'W0', 'E1']);
const ANSWERS = new Set(['R0', 'L0', 'L1', 'S4', 'S5', 'S6', 'S7', 'V0', 'G0', 'K0', 'I0', 'M0']);
const W0_ALARMS: Record<string, string> = { '1': Alarm.movement, '2': Alarm.fallDown, '3': Alarm.lowBattery };
const PREFIX = Buffer.from([0xff, 0xff]);

type Attrs = DeviceRecord['attributes'];
const int = (v: string | undefined) => (v !== undefined && /^-?\d+$/.test(v) ? Number(v) : undefined);

/** Status values by message type: how each value of the list is read. */
const STATUS: Record<string, (v: string[], a: Attrs) => void> = {
  Q0: (v, a) => set(a, { [Attr.battery]: scaled(v[0]), [Attr.batteryLevel]: int(v[1]), [Attr.rssi]: int(v[2]) }),
  H0: (v, a) => set(a, { [Attr.blocked]: int(v[0]) !== undefined ? int(v[0])! > 0 : undefined, [Attr.battery]: scaled(v[1]), [Attr.rssi]: int(v[2]), [Attr.batteryLevel]: int(v[3]) }),
  W0: (v, a) => set(a, { [Attr.alarm]: W0_ALARMS[v[0]] }),
  E0: (v, a) => set(a, { [Attr.alarm]: Alarm.fault, error: int(v[0]) }),
  S1: (v, a) => set(a, { [Attr.event]: int(v[0]) }),
};
const scaled = (v: string | undefined) => (int(v) !== undefined ? int(v)! / 100 : undefined);
function set(a: Attrs, values: Record<string, string | number | boolean | undefined>): void {
  for (const [k, v] of Object.entries(values)) if (v !== undefined) a[k] = v;
}

function fix(values: string): DeviceRecord | undefined {
  const m = FIX.exec(values);
  if (!m) return undefined;
  return {
    time: utc(Number(m[13]), Number(m[12]), Number(m[11]), Number(m[1]), Number(m[2]), Number(m[3])),
    valid: m[4] === 'A',
    lat: nmeaCoordinate(m[5], m[6]),
    lng: nmeaCoordinate(m[7], m[8]),
    satellites: Number(m[9]),
    hdop: Number(m[10]),
    altitude: Number(m[14]),
    attributes: {},
  };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1');
  const m = HEAD.exec(s.slice(s.indexOf('*')));
  if (!m) return {};
  const [, , vendor, deviceId, type, rest = ''] = m;
  const values = rest.replace(/#$/, '');
  const reply = ACKED.has(type) ? Buffer.concat([PREFIX, latin1(`*SCOS,${vendor},${deviceId},${type}#\n`)]) : undefined;
  const session = ctx.session as { last?: LastFix };
  let rec: DeviceRecord | undefined;
  if (type.startsWith('D')) {
    rec = fix(values);
    if (rec) rememberFix(session, rec);
  } else {
    const a: Attrs = {};
    STATUS[type]?.(values.split(','), a);
    if (ANSWERS.has(type)) a[Attr.result] = `${type},${values}`;
    if (Object.keys(a).length) rec = withLastFix({ attributes: a }, session);
  }
  return { deviceId, ...(rec ? { records: [rec] } : {}), ...(reply ? { reply } : {}) };
}

const COMMANDS: Record<string, (c: Command) => string> = {
  custom: (c) => String(c.attributes.data ?? ''),
  positionSingle: () => 'D0',
  positionPeriodic: (c) => `D1,${Math.trunc(Number(c.attributes.frequency ?? 0))}`,
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const content = COMMANDS[command.type];
  if (!content) throw new Error(`xrb28: unsupported command ${command.type}`);
  return Buffer.concat([PREFIX, latin1(`*SCOS,OM,${ctx.deviceId},${content(command)}#\n`)]);
}

export const protocol: Protocol = {
  name: 'xrb28',
  defaultPort: 5180,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('xrb28', [0x23], MAX_FRAME, true),
  decode,
  commands: Object.keys(COMMANDS),
  encode,
};
