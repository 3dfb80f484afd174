/**
 * Cradlepoint routers' GPS report (NetCloud "GPS to server"), one line each:
 *   <id>,<hhmmss>,<ddmm.mmmm>,<N|S>,<dddmm.mmmm>,<E|W>,<speed kn>,<course>,<carrier>,<service>,
 *   <rsrp>,<rssi>,<rsrq>,<ecio>,<wan ip>
 * The report carries only a time of day: the date is the day nearest to now. No answer is sent.
 */
import { Attr } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, nmeaCoordinate, num, timeOfDay } from './text.ts';
import { type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = /^([^,]+),(\d{1,6}),(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),(\d+\.\d+)?,(\d+\.\d+)?,([^,]*),([^,]*),(-?\d+)?,(-?\d+)?,(-?\d+)?,([^,]*),([^,]*)$/;

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const t = Number(m[2]);
  const a: DeviceRecord['attributes'] = {};
  const text = { carrier: m[9], service: m[10], ecio: m[14], ip: m[15] };
  for (const [k, v] of Object.entries(text)) if (v) a[k] = v;
  const values = { rsrp: num(m[11]), [Attr.rssi]: num(m[12]), rsrq: num(m[13]) };
  for (const [k, v] of Object.entries(values)) if (v !== undefined) a[k] = v;
  const lat = nmeaCoordinate(m[3], m[4]);
  if (Math.abs(lat) > 90) return { deviceId: m[1] };
  const rec: DeviceRecord = {
    time: timeOfDay(ctx.now, Math.floor(t / 10000), Math.floor(t / 100) % 100, t % 100),
    valid: true,
    lat,
    lng: nmeaCoordinate(m[5], m[6]),
    speed: knotsToKmh(num(m[7]) ?? 0),
    course: (num(m[8]) ?? 0) % 360,
    attributes: a,
  };
  return { deviceId: m[1], records: [rec] };
}

export const protocol: Protocol = {
  name: 'cradlepoint',
  defaultPort: 5118,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('cradlepoint', [0x0d, 0x0a], MAX_FRAME),
  decode,
  commands: [],
};
