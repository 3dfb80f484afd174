/**
 * PT60 protocol (PT60/S6 child and elderly watches): text messages in two dialects.
 *
 *   `@B#@|01|<type>|<imei>|<imsi>|[<firmware>|]<state>|<battery>|yyyyMMddHHmmss|<data>|` ending `@E#@`;
 *     type 001 is a position: `<lat>|<lng>|...|1`, or GSM cells `<cid>,<lac>,<mnc>,<mcc>,<rssi>|...|2`.
 *   `@G#@,V01,<type>,<imei>,<imsi>,yyyyMMddHHmmss,<data>,` ending `@R#@`; type 6 a track point
 *     (`<lat>;<lng>`), 13 step count, 14 heart rate and battery level (%).
 * Replies (to every message with a time): `@B#@|01|<type + 1, 3 digits>|<imei>|0|<yyyyMMddHHmmss>|@E#@`
 * and `@G#@,V01,38,<yyyyMMddHHmmss>,@R#@`, with the server's time (UTC).
 */
import { Attr } from './attributes.ts';
import { withLastFix, rememberFix, type LastFix } from './last-fix.ts';
import { DecodeError, FrameError, type Cell, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const ENDS = [Buffer.from('@E#@'), Buffer.from('@R#@')];

/** Messages end with `@E#@` (B dialect) or `@R#@` (G dialect); the end marks are not kept. */
function createFramer(): Framer {
  return {
    next(buffer) {
      let end = -1;
      for (const mark of ENDS) {
        const at = buffer.indexOf(mark);
        if (at >= 0 && (end < 0 || at < end)) end = at;
      }
      if (end < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('pt60: no end mark');
        return null;
      }
      return { frame: buffer.subarray(0, end), consumed: end + 4 };
    },
  };
}

const MESSAGE = /^@(B|G)#@[,|]V?\d\d[,|](\d+)[,|](\d+)[,|]\d+[,|](?:(?:[^,|]+[,|])?[01][,|]\d+[,|])?(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)[,|](.*)[,|]$/;
const MSG_G = { track: 6, steps: 13, heartRate: 14 };

interface Session {
  last?: LastFix;
}

const stamp = (now: number) => new Date(now).toISOString().replace(/[-:T]/g, '').slice(0, 14);

function located(rec: DeviceRecord, lat: string | undefined, lng: string | undefined): DeviceRecord {
  Object.assign(rec, { valid: true, lat: Number(lat), lng: Number(lng) });
  if (!(Math.abs(rec.lat!) <= 90 && Math.abs(rec.lng!) <= 180)) throw new DecodeError('pt60: coordinates out of range');
  return rec;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const m = MESSAGE.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const [, dialect, typeText, imei, yyyy, mo, dd, hh, mi, ss, data] = m;
  const type = Number(typeText);
  const reply = Buffer.from(dialect === 'G' ? `@G#@,V01,38,${stamp(ctx.now)},@R#@` : `@B#@|01|${String(type + 1).padStart(3, '0')}|${imei}|0|${stamp(ctx.now)}|@E#@`, 'latin1');
  const time = Date.UTC(Number(yyyy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss));
  const session = ctx.session as Session;
  let rec: DeviceRecord | undefined;
  if (dialect === 'G') {
    const values = data.split(',');
    if (type === MSG_G.track) {
      const [lat, lng] = values[0].split(';');
      rec = located({ time, attributes: {} }, lat, lng);
    } else if (type === MSG_G.steps && /^\d+$/.test(values[0])) rec = { time, attributes: { [Attr.steps]: Number(values[0]) } };
    else if (type === MSG_G.heartRate && /^\d+$/.test(values[0]) && /^\d+$/.test(values[1] ?? '')) rec = { time, attributes: { heartRate: Number(values[0]), [Attr.batteryLevel]: Number(values[1]) } };
  } else if (type === 1) {
    const values = data.split('|');
    if (values.at(-1) === '2') {
      const cells: Cell[] = [];
      for (const v of values.slice(0, -1).slice(0, 16)) {
        const [cid, lac, mnc, mcc, rssi] = v.split(',').map(Number);
        if ([cid, lac, mnc, mcc].every(Number.isFinite)) cells.push({ mcc, mnc, lac, cid, ...(Number.isFinite(rssi) ? { rssi } : {}) });
      }
      rec = { time, cells, attributes: {} };
    } else rec = located({ time, attributes: {} }, values[0], values[1]);
  }
  if (!rec) return { deviceId: imei, reply };
  if (rec.lat === undefined) withLastFix(rec, session);
  else rememberFix(session, rec);
  return { deviceId: imei, records: [rec], reply };
}

export const protocol: Protocol = {
  name: 'pt60',
  defaultPort: 5164,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  carriesText: false,
};
