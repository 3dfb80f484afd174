/**
 * PT502 / PT300 family (Pioneer) text protocol.
 *
 *   `$<type>,<id>,<hhmmss.sss>,<A|V>,<ddmm.mmmm>,<N|S>,<dddmm.mmmm>,<E|W>,<knots>,<course>,<ddmmyy>,
 *    <magnetic variation>,<direction>,<mode>/<inputs as bits>,<outputs as bits>/<analog inputs, hex>/
 *    <odometer>//<battery, hex>//[#]`
 * Types: POS (report), PHO (report with a photo), DFR, and alarms HDA (hard acceleration), HDB (hard
 * braking), FDA (fatigue driving), CPA (power cut), SKA (vibration), PMA (movement), TOW.
 * `$FUS...` announces firmware; `$PHD<n>,<length>,<JPEG bytes>` carries photo data (not kept).
 * A chunk may start with a 5-byte binary header `BF FB <checksum> <u16le chunk length>`.
 * Lines end with CR and/or LF. The device expects no acknowledgement.
 */
import { Alarm, Attr } from './attributes.ts';
import { knotsToKmh, nmeaDegrees } from './binary.ts';
import {
  DecodeError,
  FrameError,
  type AttrValue,
  type Command,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type EncodeContext,
  type Framer,
  type Protocol,
} from './types.ts';

const MAX_FRAME = 8192;
const CR = 0x0d;
const LF = 0x0a;
const PHOTO = /^\$PHD\d*,(\d+),/;

/** Skips the binary chunk header; photo frames by their length, text lines at CR/LF. */
function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && (buffer[start] === CR || buffer[start] === LF)) start++;
      if (buffer[start] === 0xbf) {
        if (buffer.length < start + 5) return null;
        if (buffer[start + 1] !== 0xfb) throw new FrameError('pt502: bad chunk header');
        start += 5;
      }
      while (start < buffer.length && (buffer[start] === CR || buffer[start] === LF)) start++;
      if (start >= buffer.length) {
        if (buffer.length > MAX_FRAME) throw new FrameError('pt502: no message');
        return null; // line breaks are skipped with the next message
      }
      const head = buffer.toString('latin1', start, Math.min(buffer.length, start + 24));
      const photo = PHOTO.exec(head);
      // A photo header still arriving: its binary data may hold CR/LF bytes, so wait for the length.
      if (!photo && '$PHD'.startsWith(head.slice(0, 4)) && !/^\$PHD\d*,\d*[^\d,]/.test(head)) {
        if (head.length >= 24) throw new FrameError('pt502: bad photo header');
        return null;
      }
      if (photo) {
        const end = start + photo[0].length + Number(photo[1]);
        if (end - start > MAX_FRAME) throw new FrameError('pt502: photo chunk too long');
        if (buffer.length < end) return null;
        let consumed = end;
        while (buffer[consumed] === CR || buffer[consumed] === LF) consumed++;
        return { frame: buffer.subarray(start, end), consumed };
      }
      let end = start;
      while (end < buffer.length && buffer[end] !== CR && buffer[end] !== LF) end++;
      if (end >= buffer.length) {
        if (buffer.length - start > MAX_FRAME) throw new FrameError('pt502: line too long');
        return null;
      }
      let consumed = end;
      while (buffer[consumed] === CR || buffer[consumed] === LF) consumed++;
      return { frame: buffer.subarray(start, end), consumed };
    },
  };
}

const ALARMS: Record<string, string> = {
  HDA: Alarm.hardAcceleration,
  HDB: Alarm.hardBraking,
  FDA: Alarm.fatigueDriving,
  CPA: Alarm.powerCut,
  SKA: Alarm.vibration,
  PMA: Alarm.movement,
  TOW: Alarm.tow,
};

const REPORT = new RegExp(
  '^\\$([A-Z]{3})[\\d-]*,(\\w+),' + // type (PHO may carry a photo number), id
    '(\\d\\d)(\\d\\d)(\\d\\d)(?:\\.\\d+)?,([AV]),' + // time, validity
    '(\\d+\\.\\d+),([NS]),(\\d+\\.\\d+),([EW]),' + // latitude, longitude
    '(\\d+\\.?\\d*)?,(\\d+\\.?\\d*)?,(\\d\\d)(\\d\\d)(\\d\\d),' + // knots, course, date
    '[^/]*' + // magnetic variation, direction, mode
    '(?:/([01]+),([01]+))?' + // inputs, outputs
    '(?:/([0-9a-fA-F,]*))?' + // analog inputs
    '(?:/(\\d+))?' + // odometer
    '(?://([0-9a-fA-F]+))?', // battery
);

function decodeReport(s: string): DecodeResult {
  const m = REPORT.exec(s);
  if (!m) return {};
  const [, type, id, hh, mi, ss, validity, lat, ns, lng, ew, knots, course, dd, mo, yy, inputs, outputs, adc, odometer, battery] = m;
  const a: Record<string, AttrValue> = {};
  const rec: DeviceRecord = {
    time: Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss)),
    valid: validity === 'A',
    lat: nmeaDegrees(Number(lat)) * (ns === 'S' ? -1 : 1),
    lng: nmeaDegrees(Number(lng)) * (ew === 'W' ? -1 : 1),
    speed: knotsToKmh(Number(knots ?? 0)),
    course: Number(course ?? 0) % 360,
    attributes: a,
  };
  if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('pt502: coordinates out of range');
  if (ALARMS[type]) a[Attr.alarm] = ALARMS[type];
  if (inputs !== undefined) {
    a[Attr.input] = parseInt(inputs, 2);
    a[Attr.output] = parseInt(outputs, 2);
  }
  adc?.split(',').forEach((v, i) => {
    if (v) a[`adcRaw${i + 1}`] = parseInt(v, 16);
  });
  if (odometer !== undefined) a[Attr.odometer] = Number(odometer);
  if (battery !== undefined) a.batteryRaw = parseInt(battery, 16);
  return { deviceId: id, records: [rec] };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (frame[0] !== 0x24) throw new DecodeError('pt502: no $ start');
  const head = frame.toString('latin1', 0, Math.min(frame.length, 24));
  if (PHOTO.test(head)) return {}; // photo data: not kept
  const s = frame.toString('latin1').trim();
  if (s.startsWith('$FUS')) return {};
  return decodeReport(s);
}

// ---- commands -----------------------------------------------------------------------------------

const line = (s: string) => Buffer.from(`${s}\r\n`, 'latin1');

const COMMANDS: Record<string, (c: Command) => Buffer> = {
  custom: (c) => line(String(c.attributes.data ?? '')),
  outputControl: (c) => line(`#OPC${c.attributes.index},${c.attributes.data}`),
  // `GMT+8` -> `#TMZ8`: the device takes whole hours
  setTimezone: (c) => {
    const m = /([+-]?\d+)(?::?(\d\d))?$/.exec(String(c.attributes.timezone ?? ''));
    if (!m) throw new Error('pt502: timezone needs an offset like GMT+8');
    return line(`#TMZ${Number(m[1])}`);
  },
  alarmSpeed: (c) => line(`#SPD${c.attributes.data}`),
};

function encode(command: Command, _ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`pt502: unsupported command ${command.type}`);
  return build(command);
}

export const protocol: Protocol = {
  name: 'pt502',
  defaultPort: 5017,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  carriesText: false,
  encode,
};
