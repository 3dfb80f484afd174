/**
 * EasyTrack (`*ET,` text) protocol.
 *
 *   position `*ET,<imei>,<HB|DW|...>,<A|V>,<yymmdd hex>,<hhmmss hex>,<lat>,<lon>,<speed>,<course>,<status>,<signal>,
 *            <power>,<oil>,<odometer>,<altitude>[,<driver id>,<engine minutes hex>,...]#`
 *            coordinates: hex minutes × 10000 (bit 31 set: south/west); speed hex in 0.01 km/h; course hex in 0.01°;
 *            status: 32-bit flags (alarms, bit 23 ignition); odometer hex in 100 m
 *   OBD      `*ET,<imei>,OB,BD$V<volts>;R<rpm>;S<km/h>;P<throttle %>;O<load %>;C<coolant °C>;L<fuel %>;...`
 *   cells    `*ET,<imei>,JZ,<?>,<cid>,<lac>,<mcc>,<mnc>`
 *   others   `MQ` heartbeat, `TX`, `GZ`, `CC`: nothing to keep. Devices expect no answer.
 * Commands: `*ET,<imei>,<code>,<params>#`.
 */
import { Alarm, Attr } from './attributes.ts';
import { FrameError, type AttrValue, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;

/** Frames run from `*` to `#` or a line break. */
function createFramer(): Framer {
  return {
    next(buffer) {
      const start = buffer.indexOf(0x2a);
      if (start < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('easytrack: no frame start');
        return null;
      }
      for (let i = start + 1; i < buffer.length; i++) {
        const b = buffer[i];
        if (b === 0x23 || b === 0x0d || b === 0x0a) return { frame: buffer.subarray(start, b === 0x23 ? i + 1 : i), consumed: i + 1 };
        if (i - start > MAX_FRAME) throw new FrameError('easytrack: frame too long');
      }
      return null;
    },
  };
}

const ALARMS: Array<[number, string]> = [
  [0x02000000, Alarm.geofenceEnter],
  [0x04000000, Alarm.geofenceExit],
  [0x08000000, Alarm.lowBattery],
  [0x20000000, Alarm.vibration],
  [0x80000000, Alarm.overspeed],
  [0x00010000, Alarm.sos],
  [0x00040000, Alarm.powerCut],
];

const POSITION =
  /^\*..,(\d+),(\w\w),([AV]),([0-9A-Fa-f]{2})([0-9A-Fa-f]{2})([0-9A-Fa-f]{2}),([0-9A-Fa-f]{2})([0-9A-Fa-f]{2})([0-9A-Fa-f]{2}),([0-9A-Fa-f]{8}),([0-9A-Fa-f]{8}),([0-9A-Fa-f]{4}),([0-9A-Fa-f]{4}),([0-9A-Fa-f]{8}),([0-9A-Fa-f]+),(\d+),([0-9A-Fa-f]+),([0-9A-Fa-f]+)(?:,(\d+))?(?:,([^,#]*),([0-9A-Fa-f]{8})(?=,|$))?/;

/** Hex minutes × 10000, bit 31 the sign. */
function coordinate(hex: string): number {
  const v = parseInt(hex, 16);
  const deg = (v & 0x7fffffff) / 600000;
  return v >= 0x80000000 ? -deg : deg;
}

function decodePosition(m: RegExpExecArray): DeviceRecord | undefined {
  const [, , command, validity, yy, mo, dd, hh, mi, ss, lat, lng, speed, course, status, signal, power, oil, odometer, altitude, driver, minutes] = m;
  const h = (s: string) => parseInt(s, 16);
  const la = coordinate(lat);
  const lo = coordinate(lng);
  if (Math.abs(la) > 90 || Math.abs(lo) > 180) return undefined;
  const flags = h(status);
  const a: Record<string, AttrValue> = {
    command,
    [Attr.status]: flags,
    [Attr.ignition]: ((flags >>> 23) & 1) === 1,
    [Attr.rssi]: h(signal),
    [Attr.power]: Number(power),
    oil: h(oil),
    [Attr.odometer]: h(odometer) * 100,
  };
  const alarm = ALARMS.find(([bit]) => (flags & bit) >>> 0 !== 0);
  if (alarm) a[Attr.alarm] = alarm[1];
  if (driver && /[1-9A-Fa-f]/.test(driver)) a[Attr.driverUniqueId] = driver;
  if (minutes !== undefined) a[Attr.hours] = h(minutes) * 60_000;
  const rec: DeviceRecord = {
    time: Date.UTC(2000 + h(yy), h(mo) - 1, h(dd), h(hh), h(mi), h(ss)),
    valid: validity === 'A',
    lat: la,
    lng: lo,
    speed: h(speed) / 100,
    course: (h(course) / 100) % 360,
    attributes: a,
  };
  if (altitude !== undefined) rec.altitude = Number(altitude);
  return rec;
}

/** OBD keys: the engine values with a common name; the others kept as `obd<key>`. */
const OBD_KEYS: Record<string, string> = {
  V: Attr.power,
  R: Attr.rpm,
  S: Attr.obdSpeed,
  P: Attr.throttle,
  O: Attr.engineLoad,
  C: Attr.coolantTemp,
  L: Attr.fuelLevel,
};

function decodeObd(data: string): DeviceRecord {
  const a: Record<string, AttrValue> = {};
  for (const item of data.split(';').slice(0, 64)) {
    const m = /^([A-Z]+)(-?\d+(?:\.\d+)?)$/.exec(item);
    if (!m) continue;
    a[OBD_KEYS[m[1]] ?? `obd${m[1]}`] = Number(m[2]);
  }
  return { attributes: a };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').replace(/#\s*$/, '');
  const head = /^\*..,(\d+),(\w\w)(?:,|$)/.exec(s);
  if (!head) return {};
  const [, imei, command] = head;
  if (command === 'OB') {
    const at = s.indexOf('$');
    const rec = decodeObd(at < 0 ? '' : s.slice(at + 1));
    return { deviceId: imei, records: Object.keys(rec.attributes).length ? [rec] : [] };
  }
  if (command === 'JZ') {
    const m = /^\*..,\d+,JZ,\d+,(\d+),(\d+),(\d+),(\d+)/.exec(s);
    if (!m) return { deviceId: imei };
    const [, cid, lac, mcc, mnc] = m.map(Number);
    return { deviceId: imei, records: [{ cells: [{ mcc, mnc, lac, cid }], attributes: {} }] };
  }
  const m = POSITION.exec(s);
  const rec = m ? decodePosition(m) : undefined;
  return { deviceId: imei, records: rec ? [rec] : [] };
}

// ---- commands ---------------------------------------------------------------------------------

const COMMANDS: Record<string, (c: Command) => string> = {
  engineStop: () => 'FD,Y1',
  engineResume: () => 'FD,Y2',
  custom: (c) => `KS,${String(c.attributes.data ?? '')}`,
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`easytrack: unsupported command ${command.type}`);
  return Buffer.from(`*ET,${ctx.deviceId},${build(command)}#`, 'latin1');
}

export const protocol: Protocol = {
  name: 'easytrack',
  defaultPort: 5056,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  carriesText: false,
  encode,
};
