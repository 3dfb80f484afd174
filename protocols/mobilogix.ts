/**
 * Mobilogix trackers: bracketed text messages.
 *
 *   `[<yyyy-MM-dd HH:mm:ss>,T<n>,<1>,<firmware>,<id>,<status hex>,<supply V>,<GNSS info (3 digits,
 *    the last non-zero with a fix)>,<lat>,<lng>,<km/h>,<course>[,<battery V>,...,<mcc>,<mnc>,<lac>,<cid>,...]]`
 * T1 is the login (`...,<ICCID>,<IMEI>`), T8 and T16 carry nothing kept, T14 is a status report
 * without position; the other types are positions (periodic, alarms, events).
 * The login is answered `[<server time>,S1,1]`. Commands: `[<server time>,S6,RELAY=<0|1>]`.
 */
import { bracketedFramer } from './text.ts';
import { Attr } from './attributes.ts';
import {
  DecodeError,
  type Command,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type EncodeContext,
  type Framer,
  type Protocol,
} from './types.ts';

const MAX_FRAME = 1024;

const createFramer = (): Framer => bracketedFramer('mobilogix', 0x5b, 0x5d, MAX_FRAME);

const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

function parseTime(s: string): number {
  const m = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)$/.exec(s);
  if (!m) throw new DecodeError('mobilogix: bad time');
  const [, y, mo, d, h, mi, se] = m.map(Number);
  return Date.UTC(y, mo - 1, d, h, mi, se);
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const text = frame.toString('latin1').trim().replace(/^\[/, '').replace(/\]$/, '');
  const f = text.split(',');
  if (f.length < 5 || !/^T\d+$/.test(f[1])) throw new DecodeError('mobilogix: bad message');
  const time = parseTime(f[0]);
  const type = f[1];
  const id = f[4];
  if (!/^\w{1,20}$/.test(id)) throw new DecodeError('mobilogix: bad id');
  if (type === 'T1') return { deviceId: id, reply: Buffer.from(`[${stamp(ctx.now)},S1,1]`, 'latin1') };
  if (type === 'T8' || type === 'T16' || f.length < 7) return { deviceId: id };
  const rec: DeviceRecord = { time, attributes: { type, [Attr.status]: parseInt(f[5], 16) || 0, [Attr.power]: Number(f[6]) } };
  if (f.length >= 12) {
    const [lat, lng, speed, course] = [8, 9, 10, 11].map((i) => Number(f[i]));
    if (![lat, lng, speed, course].every(Number.isFinite) || Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('mobilogix: bad position');
    Object.assign(rec, { lat, lng, speed, course: course % 360, valid: /^\d\d[1-9]$/.test(f[7]) });
  }
  if (f.length >= 13 && Number.isFinite(Number(f[12]))) rec.attributes[Attr.battery] = Number(f[12]);
  if (f.length >= 21) {
    const [mcc, mnc, lac, cid] = [17, 18, 19, 20].map((i) => Number(f[i]));
    if ([mcc, mnc, lac, cid].every(Number.isInteger) && mcc > 0) rec.cells = [{ mcc, mnc, lac, cid }];
  }
  return { deviceId: id, records: [rec] };
}

const RELAY: Record<string, number> = { engineStop: 1, engineResume: 0 };

function encode(command: Command, ctx: EncodeContext): Buffer {
  if (!(command.type in RELAY)) throw new Error(`mobilogix: unsupported command ${command.type}`);
  return Buffer.from(`[${stamp(ctx.now)},S6,RELAY=${RELAY[command.type]}]`, 'latin1');
}

export const protocol: Protocol = {
  name: 'mobilogix',
  defaultPort: 5216,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(RELAY),
  carriesText: false,
  encode,
};
