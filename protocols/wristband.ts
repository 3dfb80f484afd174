/**
 * Wristband (YX) protocol: `00 01 02 | u16 length | text | FF FE FC`, the text being
 * `YX<imei>|<version>|<model>|{F<function>[#<data>]}\r\n`. Functions:
 *   F01 status `<battery %>,<x>,...` (answered with `<x>`), F02 fixes `<lon>,<lat>,<yyyyMMddHHmm>,<km/h>` joined by `|`,
 *   F03 Wi-Fi `<mac>,<rssi>_...` then `|` and cells, F04 cells `<lac>,<mnc>,<mcc>,<cid>,<rssi>` joined by `:`,
 *   F64 (answered with its data), F90 / F91 ask for the server address (and, F91, the time).
 * Answers: `00 01 02 | u16 length | YX<imei>|<version>|0|{F<nn>#<data>}\r\n | FF FE FC`. F90/F91 are answered only
 * when the `server` setting (`host,port`) says where devices should connect.
 * Status and cell records take the connection's last fix, marked not valid.
 */
import { Attr } from './attributes.ts';
import { lengthFieldFramer } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { utc, wifiAttribute } from './text.ts';
import { DecodeError, type Cell, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 2048;
const MESSAGE = /^YX(\d+)\|([vV]\d+\.\d+)\|\d+\|\{F(\d+)(?:#(.*))?\}\r\n$/s;
const INT = /^-?\d+$/;

function reply(imei: string, version: string, type: number, data: string): Buffer {
  const text = Buffer.from(`YX${imei}|${version}|0|{F${String(type).padStart(2, '0')}#${data}}\r\n`, 'latin1');
  const head = Buffer.from([0x00, 0x01, 0x02, text.length >> 8, text.length & 0xff]);
  return Buffer.concat([head, text, Buffer.from([0xff, 0xfe, 0xfc])]);
}

function fix(fragment: string): DeviceRecord {
  const [lon, lat, time, speed] = fragment.split(',');
  const t = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)$/.exec(time ?? '');
  const rec = { valid: true, lat: Number(lat), lng: Number(lon), speed: Number(speed), attributes: {} };
  if (!t || !(Math.abs(rec.lat) <= 90 && Math.abs(rec.lng) <= 180 && rec.speed >= 0)) throw new DecodeError('wristband: bad fix');
  return { ...rec, time: utc(+t[1], +t[2], +t[3], +t[4], +t[5]) };
}

function cells(part: string): Cell[] {
  return part.split(':').map((item) => {
    const v = item.split(',');
    if (v.length < 5 || !v.slice(0, 5).every((x) => INT.test(x))) throw new DecodeError('wristband: bad cell');
    const [lac, mnc, mcc, cid, rssi] = v.map(Number);
    return { mcc, mnc, lac, cid, rssi };
  });
}

function network(data: string, wifi: boolean): DeviceRecord {
  const parts = data.split('|');
  const rec: DeviceRecord = { attributes: {} };
  if (wifi) {
    const points = parts[0].split('_').map((item) => {
      const [mac, rssi] = item.split(',');
      if (!INT.test(rssi ?? '')) throw new DecodeError('wristband: bad access point');
      return { mac, rssi: Number(rssi) };
    });
    rec.attributes.wifi = wifiAttribute(points);
  }
  rec.cells = cells(parts[wifi ? 1 : 0] ?? '');
  return rec;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length < 8) throw new DecodeError('wristband: short frame');
  const m = MESSAGE.exec(frame.toString('latin1', 5, frame.length - 3));
  if (!m) throw new DecodeError('wristband: bad message');
  const [, imei, version, fn, data = ''] = m;
  const type = Number(fn);
  const holder = ctx.session as { last?: LastFix };
  const out: DecodeResult = { deviceId: imei };
  const placed = (rec: DeviceRecord) => withLastFix(rec, holder);
  switch (type) {
    case 1: {
      const v = data.split(',');
      if (!INT.test(v[0])) throw new DecodeError('wristband: bad status');
      out.records = [placed({ attributes: { [Attr.batteryLevel]: Number(v[0]) } })];
      out.reply = reply(imei, version, type, v[1] ?? '');
      break;
    }
    case 2:
      out.records = data.split('|').map(fix);
      for (const r of out.records) rememberFix(holder, r);
      break;
    case 3:
    case 4:
      out.records = [placed(network(data, type === 3))];
      break;
    case 64:
      out.reply = reply(imei, version, type, data);
      break;
    case 90:
    case 91: {
      const server = ctx.config.server;
      if (typeof server !== 'string') break;
      const time = new Date(ctx.now).toISOString().slice(0, 19).replace(/[T:]/g, '-');
      out.reply = reply(imei, version, type, type === 91 ? `${time}|${server}` : server);
      break;
    }
  }
  for (const r of out.records ?? []) r.time ??= ctx.now;
  return out;
}

export const protocol: Protocol = {
  name: 'wristband',
  defaultPort: 5174,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  // u16 at offset 3 counts the text; the 3-byte footer follows it
  createFramer: () => lengthFieldFramer('wristband', 3, 2, 3, MAX_FRAME),
  decode,
  commands: [],
};
