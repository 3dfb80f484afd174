/**
 * Ennfu text protocol, messages cut at `$`:
 *   `Ennfu:<imei>,<hhmmss.ss>,<A|V>,<ddmm.mmmmm>,<N|S>,<dddmm.mmmmm>,<E|W>,[<knots>],[<course>],<ddmmyy>,<rssi>,
 *    <battery V>,<battery %>,<firmware>`; `Ennfu:HeartBeat,<imei>` carries nothing kept.
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { delimitedFramer, nmeaFix } from './text.ts';
import type { DecodeContext, DecodeResult, Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = /^Ennfu:(\d+),(\d\d)(\d\d)(\d\d)\.\d\d,([AV]),(\d{4}\.\d+),([NS]),(\d{5}\.\d+),([EW]),(\d+\.\d+)?,(\d+\.\d+)?,(\d\d)(\d\d)(\d\d),(\d+),(\d+\.\d+),(\d+\.\d+),(V\d\.\d\d)/;
const HEARTBEAT = /^Ennfu:HeartBeat,(\d+)/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  const hb = HEARTBEAT.exec(s);
  if (hb) return { deviceId: hb[1] };
  const m = REPORT.exec(s);
  if (!m) return {};
  const [, imei, hh, mi, ss, valid, lat, ns, lng, ew, knots, course, dd, mo, yy, rssi, battery, level, version] = m;
  const rec = nmeaFix({ dd, mo, yy, hh, mi, ss, valid, lat, ns, lng, ew, knots, course });
  rec.attributes = { [Attr.rssi]: Number(rssi), [Attr.battery]: Number(battery), [Attr.batteryLevel]: Number(level), versionFw: version };
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'ennfu',
  defaultPort: 5220,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('ennfu', [0x24], MAX_FRAME),
  decode,
  commands: [],
};
