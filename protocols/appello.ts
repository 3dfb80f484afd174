/**
 * Appello (FOLLOWIT) text protocol, one message a line:
 *   `FOLLOWIT,<imei>,<yymmddhhmmss[.s]>|UTCTIME,<lat>,<lon>,<km/h>,<course>,<satellites>,<altitude>,<F|L>,<cells>,...`
 * `F` is a GNSS fix, `L` a position from the network (kept as an LBS point). `UTCTIME` means the device has
 * no time: the record gets the time of arrival. Cells come as `mcc,mnc,lac hex,cid hex,rssi` or as a list
 * `mcc:mnc:lac:cid:rssi[:x]|...`; later fields carry the battery (`n.nn` V) and Wi-Fi (`MAC:rssi|...`).
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { delimitedFramer, macColons, utc, wifiAttribute } from './text.ts';
import { DecodeError, type Cell, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 2048;
const HEAD = /^FOLLOWIT,(\d+),(?:(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(?:\.\d*)?|UTCTIME),(-?\d+\.\d+),(-?\d+\.\d+),(\d+),(\d+),(\d+),(-?\d+),([FL]),/;
const CELL_LIST = /^(\d+):(\d+):([0-9a-fA-F]+):([0-9a-fA-F]+):(\d+)/;
const WIFI_LIST = /^([0-9A-Fa-f]{12}:\d+\|)+$/;

/** Cells at the start of `rest`, and where the fields after them begin. */
function cells(rest: string[]): { cells: Cell[]; next: number } {
  if (rest[0]?.includes(':')) {
    const list = rest[0].split('|').flatMap((c) => {
      const m = CELL_LIST.exec(c);
      return m ? [{ mcc: +m[1], mnc: +m[2], lac: parseInt(m[3], 16), cid: parseInt(m[4], 16), rssi: +m[5] }] : [];
    });
    return { cells: list, next: 1 };
  }
  const [mcc, mnc, lac, cid, rssi] = rest;
  if (/^\d+$/.test(mcc ?? '') && /^\d+$/.test(mnc ?? '') && /^[0-9A-Fa-f]+$/.test(lac ?? '') && /^[0-9A-Fa-f]+$/.test(cid ?? '')) {
    return { cells: [{ mcc: +mcc, mnc: +mnc, lac: parseInt(lac, 16), cid: parseInt(cid, 16), ...(/^\d+$/.test(rssi ?? '') ? { rssi: +rssi } : {}) }], next: 5 };
  }
  return { cells: [], next: 0 };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  const m = HEAD.exec(s);
  if (!m) throw new DecodeError('appello: not a report');
  const [head, imei, yy, mo, dd, hh, mi, ss, lat, lng, speed, course, sats, altitude, state] = m;
  const rec: DeviceRecord = { time: yy ? utc(+yy, +mo, +dd, +hh, +mi, +ss) : ctx.now, satellites: Number(sats), attributes: {} };
  const la = Number(lat);
  const lo = Number(lng);
  if (Math.abs(la) > 90 || Math.abs(lo) > 180) throw new DecodeError('appello: coordinates out of range');
  if (la !== 0 || lo !== 0) {
    Object.assign(rec, { lat: la, lng: lo, valid: state === 'F', speed: Number(speed), course: Number(course) % 360, altitude: Number(altitude) });
    if (state === 'L') rec.lbs = true;
  }
  const rest = s.slice(head.length).split(',');
  const found = cells(rest);
  if (found.cells.length) rec.cells = found.cells;
  const battery = rest.slice(found.next).find((f) => /^\d\.\d\d$/.test(f));
  if (battery) rec.attributes[Attr.battery] = Number(battery);
  const wifi = rest.find((f) => WIFI_LIST.test(f));
  if (wifi) {
    const points = wifi.split('|').filter(Boolean).map((p) => ({ mac: macColons(p.slice(0, 12)), rssi: Number(p.slice(13)) }));
    rec.attributes.wifi = wifiAttribute(points);
  }
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'appello',
  defaultPort: 5109,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('appello', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
