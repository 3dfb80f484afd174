/**
 * S168 text protocol (watches and personal trackers), messages cut at `$`:
 *   `S168#<imei>#<serial hex>#<length hex>#<part>;<part>;...` where a part is `<name>:<values>`:
 *   GDATA `A|V,<satellites>,<yymmddhhmmss>,<lat>,<lon>,<km/h>,<course>,<altitude>`,
 *   CELL `<count>,<mcc hex>,<mnc hex>,(<lac hex>,<cid hex>,<rssi hex>)*`, WIFI `<count>,(<mac>,<rssi>)*`,
 *   STATUS `<battery %>,<signal>`; others (SYNC, LOCA, ALERT, FARM, WAY) are not kept.
 * A message with none of these yields nothing; one without GDATA is a status record. No answer is expected.
 */
import { Attr } from './attributes.ts';
import { delimitedFramer, utc, wifiAttribute } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const HEX = /^[0-9a-fA-F]+$/;
const INT = /^-?\d+$/;

function int(v: string | undefined, hex = false): number {
  if (v === undefined || !(hex ? HEX : INT).test(v)) throw new DecodeError('s168: bad number');
  return hex ? parseInt(v, 16) : Number(v);
}

const PARTS: Record<string, (v: string[], rec: DeviceRecord, ctx: { wifi: Array<{ mac: string; rssi: number }> }) => void> = {
  GDATA: (v, rec) => {
    const t = /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/.exec(v[2] ?? '');
    if (!t) throw new DecodeError('s168: bad time');
    Object.assign(rec, {
      valid: v[0] === 'A',
      satellites: int(v[1]),
      time: utc(+t[1], +t[2], +t[3], +t[4], +t[5], +t[6]),
      lat: Number(v[3]),
      lng: Number(v[4]),
      speed: Number(v[5]),
      course: int(v[6]) % 360,
      altitude: int(v[7]),
    });
    if (!(Math.abs(rec.lat!) <= 90 && Math.abs(rec.lng!) <= 180 && rec.speed! >= 0)) throw new DecodeError('s168: bad fix');
  },
  CELL: (v, rec) => {
    const count = int(v[0]);
    const mcc = int(v[1], true);
    const mnc = int(v[2], true);
    rec.cells = [];
    for (let i = 0; i < count; i++) rec.cells.push({ mcc, mnc, lac: int(v[3 + i * 3], true), cid: int(v[4 + i * 3], true), rssi: int(v[5 + i * 3], true) });
  },
  WIFI: (v, _rec, ctx) => {
    const count = int(v[0]);
    for (let i = 0; i < count; i++) ctx.wifi.push({ mac: (v[1 + i * 2] ?? '').replace(/-/g, ':'), rssi: int(v[2 + i * 2]) });
  },
  STATUS: (v, rec) => {
    rec.attributes[Attr.batteryLevel] = int(v[0]);
    rec.attributes[Attr.rssi] = int(v[1]);
  },
};

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const f = frame.toString('latin1').trim().split('#');
  if (f[0] !== 'S168' || f.length < 5 || !f[1]) throw new DecodeError('s168: bad message');
  const rec: DeviceRecord = { attributes: {} };
  const extra = { wifi: [] as Array<{ mac: string; rssi: number }> };
  let kept = false;
  for (const part of f[4].split(';')) {
    const colon = part.indexOf(':');
    const read = colon > 0 ? PARTS[part.slice(0, colon)] : undefined;
    if (!read) continue;
    read(part.slice(colon + 1).split(','), rec, extra);
    kept = true;
  }
  if (extra.wifi.length) rec.attributes.wifi = wifiAttribute(extra.wifi);
  if (!kept) return { deviceId: f[1] };
  rec.time ??= ctx.now;
  return { deviceId: f[1], records: [rec] };
}

export const protocol: Protocol = {
  name: 's168',
  defaultPort: 5204,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('s168', [0x24], MAX_FRAME),
  decode,
  commands: [],
};
