/**
 * GenX (Genx Mobile) text reports, one a line: comma-separated values whose meaning the device's report
 * configuration sets. The decoder setting `reportColumns` lists the column ids in order (default
 * `1,2,3,4`); known ids: 1 or 28 device id, 2 time `MM/dd/yyyy HH:mm:ss` (UTC), 3 latitude, 4 longitude
 * (degrees), 11 ignition `ON`/`OFF`, 13 speed km/h, 17 course, 23 odometer km, 27 altitude ft,
 * 46 satellites. A line without a device id is dropped. The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 2048;
const DEFAULT_COLUMNS = '1,2,3,4';
const TIME = /^(\d\d)\/(\d\d)\/(\d{4}) (\d\d):(\d\d):(\d\d)$/;

const finite = (v: string): number => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new DecodeError('genx: bad number');
  return n;
};

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const values = frame.toString('latin1').trim().split(',');
  const columns = String(ctx.config.reportColumns ?? DEFAULT_COLUMNS).split(',').map(Number);
  const rec: DeviceRecord = { valid: true, attributes: {} };
  let deviceId: string | undefined;
  for (let i = 0; i < Math.min(values.length, columns.length); i++) {
    const v = values[i];
    switch (columns[i]) {
      case 1:
      case 28:
        if (/^\w{1,32}$/.test(v)) deviceId = v;
        break;
      case 2: {
        const m = TIME.exec(v);
        if (!m) throw new DecodeError('genx: bad time');
        rec.time = utc(+m[3], +m[1], +m[2], +m[4], +m[5], +m[6]);
        break;
      }
      case 3: rec.lat = finite(v); break;
      case 4: rec.lng = finite(v); break;
      case 11: rec.attributes[Attr.ignition] = v === 'ON'; break;
      case 13: rec.speed = finite(v); break;
      case 17: rec.course = finite(v) % 360; break;
      case 23: rec.attributes[Attr.odometer] = finite(v) * 1000; break;
      case 27: rec.altitude = finite(v) * 0.3048; break;
      case 46: rec.satellites = finite(v); break;
    }
  }
  if (!deviceId) return {};
  if (rec.lat === undefined || rec.lng === undefined || !(Math.abs(rec.lat) <= 90 && Math.abs(rec.lng) <= 180)) throw new DecodeError('genx: no valid position');
  rec.time ??= ctx.now;
  return { deviceId, records: [rec] };
}

export const protocol: Protocol = {
  name: 'genx',
  defaultPort: 5148,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('genx', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
