/**
 * B2316 (UDP) JSON datagrams: `{"imei": "...", "data": [items]}`, each item with `tm` (unix s) and any of
 * `gp` ("lon,lat"), `ci` ("mcc,mnc,lac,cid,rssi"), `wi` ("mac,rssi;..."), `wn` (alarm 1-4), `ic` (ICCID), `ve` (firmware),
 * `te` (temperatures x 10, comma separated), `st` (steps), `ba` (battery 0-4), `sn` (signal), `hr` (heart rate).
 * Items without `gp` take the connection's last fix, not valid (0,0 when none is known yet: the captures expect a
 * fix there). The devices expect no answer.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { macColons, wifiAttribute } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_ITEMS = 256;
const ALARMS: Record<number, string> = { 1: Alarm.lowBattery, 2: Alarm.sos, 3: Alarm.powerOff, 4: Alarm.removing };
const BATTERY: Record<number, number> = { 0: 10, 1: 30, 2: 60, 3: 80, 4: 100 };
type Json = Record<string, unknown>;

const ints = (v: unknown): number[] | undefined => {
  if (typeof v !== 'string') return undefined;
  const parts = v.split(',').map(Number);
  return parts.every(Number.isFinite) ? parts : undefined;
};
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);

function item(j: Json, holder: { last?: LastFix }): DeviceRecord {
  const tm = int(j.tm);
  if (tm === undefined) throw new DecodeError('b2316: item without time');
  const rec: DeviceRecord = { time: tm * 1000, attributes: {} };
  const a = rec.attributes;
  const gp = ints(j.gp);
  if (gp && gp.length >= 2 && Math.abs(gp[1]) <= 90 && Math.abs(gp[0]) <= 180) {
    Object.assign(rec, { valid: true, lng: gp[0], lat: gp[1] });
    rememberFix(holder, rec);
  } else {
    withLastFix(rec, holder);
    rec.time = tm * 1000;
    if (rec.lat === undefined) Object.assign(rec, { valid: false, lat: 0, lng: 0 });
  }
  const ci = ints(j.ci);
  if (ci && ci.length >= 5) rec.cells = [{ mcc: ci[0], mnc: ci[1], lac: ci[2], cid: ci[3], rssi: ci[4] }];
  if (typeof j.wi === 'string') {
    const points = j.wi.split(';').flatMap((p) => {
      const [mac, rssi] = p.split(',');
      return /^[0-9a-fA-F]{12}$/.test(mac ?? '') && Number.isFinite(Number(rssi)) ? [{ mac: macColons(mac), rssi: Number(rssi) }] : [];
    });
    if (points.length) a.wifi = wifiAttribute(points);
  }
  if (ALARMS[int(j.wn) ?? -1]) a[Attr.alarm] = ALARMS[int(j.wn)!];
  if (typeof j.ic === 'string') a[Attr.iccid] = j.ic;
  if (typeof j.ve === 'string') a.versionFw = j.ve;
  ints(j.te)?.forEach((t, i) => (a[indexed.temp(i + 1)] = t / 10));
  if (int(j.st) !== undefined) a[Attr.steps] = int(j.st)!;
  if (BATTERY[int(j.ba) ?? -1] !== undefined) a[Attr.batteryLevel] = BATTERY[int(j.ba)!];
  if (int(j.sn) !== undefined) a[Attr.rssi] = int(j.sn)!;
  if (int(j.hr) !== undefined) a.heartRate = int(j.hr)!;
  return rec;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  let root: unknown;
  try {
    root = JSON.parse(frame.toString('utf8'));
  } catch {
    throw new DecodeError('b2316: not JSON');
  }
  const j = root as Json;
  if (!j || typeof j !== 'object' || typeof j.imei !== 'string' || !Array.isArray(j.data)) throw new DecodeError('b2316: bad message');
  const holder = ctx.session as { last?: LastFix };
  const records = j.data.slice(0, MAX_ITEMS).filter((x): x is Json => !!x && typeof x === 'object').map((x) => item(x, holder));
  return { deviceId: j.imei, records };
}

export const protocol: Protocol = {
  name: 'b2316',
  defaultPort: 5230,
  transports: ['udp'],
  maxFrameSize: 8192,
  decode,
  commands: [],
};
