/**
 * Laipac protocol (S911, AVL-series): NMEA-like text sentences, one per line, `*XX` XOR checksum.
 *
 *   `$AVRMC,<id>,hhmmss,<status>,ddmm.mmmm,N,dddmm.mmmm,E,<knots>,<course>,ddmmyy,<event>,<battery>,
 *    <km>,<gps>,<adc1>,<adc2>[,<lac4><cid4>,<mcc><mnc>][,...]*XX`  a report. Status A/R/P: valid
 *    (GPS, last known, ...), V: not valid; lower case asks for an acknowledgement.
 *   `$EAVSYS,<id>,<iccid>,<phone>,<owner>,<firmware>*XX`  SIM and firmware (no location).
 *   `$ECHK,<id>,<n>*XX`  a link check, echoed back. `$AVSYS` (settings) is not decoded.
 *
 * Replies: a report with a lower-case status gets `$EAVACK,<event>,<its checksum>*XX`; reports of
 * events the device wants confirmed (3 SOS, M, S/T, X/4 geofence, Y tow, Z low battery) get
 * `$AVCFG,<device password>,<d|m|t|x|y|z>*XX` (password from the decoder config `devicePassword`,
 * default 00000000). Every reply ends with CR LF.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { knotsToKmh, xorSum } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { FrameError, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const DEFAULT_PASSWORD = '00000000';

/** One sentence per line (CR LF or LF); empty lines are skipped. */
function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && (buffer[start] === 0x0d || buffer[start] === 0x0a)) start++;
      const end = buffer.indexOf(0x0a, start);
      if (end < 0) {
        if (buffer.length - start > MAX_FRAME) throw new FrameError('laipac: line too long');
        return null;
      }
      const stop = buffer[end - 1] === 0x0d ? end - 1 : end;
      return { frame: buffer.subarray(start, stop), consumed: end + 1 };
    },
  };
}

/** `$<body>*XX\r\n` with the XOR of the body. */
export function sentence(body: string): Buffer {
  const b = Buffer.from(body, 'latin1');
  return Buffer.from(`$${body}*${xorSum(b).toString(16).toUpperCase().padStart(2, '0')}\r\n`, 'latin1');
}

const EVENT_ALARMS: Record<string, string> = {
  Z: Alarm.lowBattery,
  Y: Alarm.tow,
  X: Alarm.geofenceEnter,
  T: Alarm.tampering,
  H: Alarm.powerOff,
  '8': Alarm.vibration,
  '7': Alarm.geofenceExit,
  '4': Alarm.geofenceExit,
  '6': Alarm.overspeed,
  '5': Alarm.powerCut,
  '3': Alarm.sos,
};
/** Events the device wants confirmed, and the letter that confirms them. */
const EVENT_CONFIRM: Record<string, string> = { '3': 'd', M: 'm', S: 't', T: 't', X: 'x', '4': 'x', Y: 'y', Z: 'z' };

const AVRMC = new RegExp(
  '^\\$AVRMC,([^,]+),(\\d\\d)(\\d\\d)(\\d\\d),([AVRPavrp]),(\\d\\d)(\\d\\d\\.\\d+),([NS]),(\\d{3})(\\d\\d\\.\\d+),([EW]),(\\d+\\.\\d+),(\\d+\\.\\d+),(\\d\\d)(\\d\\d)(\\d\\d),' +
    '([0-9A-Za-z]),([\\d.]+),(\\d+),(\\d),(\\d+),(\\d+)' +
    '(?:,([0-9A-Fa-f]{4}|[0-9A-Fa-f])([0-9A-Fa-f]{4}),(\\d{3}|\\d)(\\d{3}))?(?:,[^*]*)?\\*([0-9A-Fa-f]{2})',
);

interface Session {
  last?: LastFix;
}

function decodeAvrmc(s: string, ctx: DecodeContext): DecodeResult {
  const m = AVRMC.exec(s);
  if (!m) return {};
  const [, id, hh, mi, ss, status, latD, latM, latH, lngD, lngM, lngH, speed, course, dd, mo, yy, event, battery, km, gps, adc1, adc2, lac, cid, mcc, mnc, checksum] = m;
  const upper = status.toUpperCase();
  const lat = (Number(latD) + Number(latM) / 60) * (latH === 'S' ? -1 : 1);
  const lng = (Number(lngD) + Number(lngM) / 60) * (lngH === 'W' ? -1 : 1);
  const rec: DeviceRecord = {
    time: Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss)),
    valid: upper === 'A' || upper === 'R' || upper === 'P',
    lat,
    lng,
    speed: knotsToKmh(Number(speed)),
    course: Number(course),
    attributes: {
      [Attr.status]: status,
      [Attr.battery]: Number(battery.replace(/\./g, '')) / 1000,
      [Attr.odometer]: Number(km) * 1000,
      gps: Number(gps),
      [indexed.adc(1)]: Number(adc1) / 1000,
    },
  };
  const a = rec.attributes;
  if (ctx.config.model === 'AVL110' || ctx.config.model === 'AVL120') a[indexed.adc(2)] = Number(adc2) / 1000;
  if (EVENT_ALARMS[event]) a[Attr.alarm] = EVENT_ALARMS[event];
  // Input events: A..D and O..R carry the two inputs as a 2-bit number.
  const inputs = event >= 'A' && event <= 'D' ? event.charCodeAt(0) - 65 : event >= 'O' && event <= 'R' ? event.charCodeAt(0) - 79 : -1;
  if (inputs >= 0) Object.assign(a, { [indexed.in(1)]: (inputs & 1) !== 0, [indexed.in(2)]: (inputs & 2) !== 0 });
  else a[Attr.event] = event;
  if (lac !== undefined) rec.cells = [{ mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16) }];
  rememberFix(ctx.session as Session, rec);

  const replies: Buffer[] = [];
  if (status !== upper) replies.push(sentence(`EAVACK,${event},${checksum}`));
  const confirm = EVENT_CONFIRM[event];
  if (confirm) replies.push(sentence(`AVCFG,${String(ctx.config.devicePassword ?? DEFAULT_PASSWORD)},${confirm}`));
  return { deviceId: id, records: [rec], reply: replies.length ? Buffer.concat(replies) : undefined };
}

const EAVSYS = /^\$EAVSYS,([^,]+),(\d+),(\+?\d+)?,[^,]*,([^,*]*)\*[0-9A-Fa-f]{2}/;

function decodeEavsys(s: string, ctx: DecodeContext): DecodeResult {
  const m = EAVSYS.exec(s);
  if (!m) return {};
  const [, id, iccid, phone, firmware] = m;
  const rec: DeviceRecord = { attributes: { [Attr.iccid]: iccid } };
  if (phone) rec.attributes.phone = phone;
  if (firmware) rec.attributes.versionFw = firmware;
  return { deviceId: id, records: [withLastFix(rec, ctx.session as Session)] };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  if (s.startsWith('$ECHK')) {
    const id = /^\$ECHK,([^,*]+)/.exec(s)?.[1];
    return { deviceId: id, reply: Buffer.from(`${s}\r\n`, 'latin1') };
  }
  if (s.startsWith('$EAVSYS')) return decodeEavsys(s, ctx);
  if (s.startsWith('$AVRMC')) return decodeAvrmc(s, ctx);
  return {};
}

const password = (ctx: EncodeContext) => String(ctx.config.devicePassword ?? DEFAULT_PASSWORD);
const COMMANDS: Record<string, (c: Command, ctx: EncodeContext) => string> = {
  positionSingle: (_c, ctx) => `AVREQ,${password(ctx)},1`,
  rebootDevice: (_c, ctx) => `AVRESET,${ctx.deviceId},${password(ctx)}`,
  custom: (c) => String(c.attributes.data ?? ''),
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`laipac: unsupported command ${command.type}`);
  return sentence(build(command, ctx));
}

export const protocol: Protocol = {
  name: 'laipac',
  defaultPort: 5048,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  carriesText: false,
  encode,
};
