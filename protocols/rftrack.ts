/**
 * RF-Track bracelet gateways (HTTP): a form-encoded POST (`/deviceDataUpload.do`) whose fields are
 * `i` (IMEI), `v` firmware, `t` device time (ms), `bat` (bits 0-7 %, 8-11 plug status, 12-15 charging 1),
 * `id` bracelet id, `rc` (bits 0-15 bracelet code, 16+ status), `idt` (heartbeat, paired and unpaired times in
 * 10 s units at bits 45+, 30-45, 15-30), `mt` (device and bracelet vibration times, 10 s units), `gps` JSON
 * `{x, y, z, a, t}`, `gsm` JSON `{c: mcc, n: mnc, b: [{l: lac, c: cid, b: rssi}]}`, `wifi` JSON `[{m, l}]`,
 * `dbm` signal, `bar` pressure, `cob` pressure changes, `u_ids` unpaired ids.
 * Answer: HTTP 200 with `{}` (the gateway reads commands from it); 400 without `i`.
 * Without a `gps` fix the record takes the connection's last one, not valid.
 */
import { Attr } from './attributes.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { macColons, wifiAttribute } from './text.ts';
import { DecodeError, type AttrValue, type Cell, type DecodeContext, type DeviceRecord, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const MAX_BODY = 64 * 1024;
type Json = Record<string, unknown>;
const INT = /^-?\d+$/;

function json(v: string): unknown {
  try {
    return JSON.parse(v);
  } catch {
    throw new DecodeError('rftrack: bad JSON field');
  }
}
const n = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

type Field = (v: string, rec: DeviceRecord, cells: Cell[], wifi: Array<{ mac: string; rssi: number }>) => void;
const intField = (f: (x: number, a: Record<string, AttrValue>) => void): Field => (v, rec) => {
  if (INT.test(v)) f(Number(v), rec.attributes);
};

const FIELDS: Record<string, Field> = {
  v: (v, rec) => (rec.attributes.versionFw = v),
  bat: intField((x, a) => Object.assign(a, { [Attr.batteryLevel]: x & 0xff, plugStatus: (x >> 8) & 0x0f, [Attr.charge]: ((x >> 12) & 0x0f) === 1 })),
  id: (v, rec) => (rec.attributes.braceletId = v),
  rc: intField((x, a) => Object.assign(a, { braceletCode: x & 0xffff, braceletStatus: Math.floor(x / 0x10000) })),
  idt: (v, rec) => {
    if (!/^\d+$/.test(v)) return;
    const x = BigInt(v);
    Object.assign(rec.attributes, { lastHeartbeat: Number(x >> 45n) * 10, lastPaired: Number((x >> 30n) & 0xffffn) * 10, lastUnpaired: Number((x >> 15n) & 0xffffn) * 10 });
  },
  mt: intField((x, a) => Object.assign(a, { vibrationDevice: (x & 0x7fff) * 10, vibrationBracelet: Math.floor(x / 0x8000) * 10 })),
  gps: (v, rec) => {
    const g = json(v) as Json;
    const [x, y, z, acc, t] = [n(g?.x), n(g?.y), n(g?.z), n(g?.a), n(g?.t)];
    if (x === undefined || y === undefined || Math.abs(y) > 90 || Math.abs(x) > 180) throw new DecodeError('rftrack: bad fix');
    Object.assign(rec, { valid: true, lat: y, lng: x, time: t });
    if (z !== undefined) rec.altitude = z;
    if (acc !== undefined) rec.precision = acc;
  },
  gsm: (v, _rec, cells) => {
    const g = json(v) as Json;
    const [mcc, mnc] = [n(g?.c), n(g?.n)];
    if (mcc === undefined || mnc === undefined || !Array.isArray(g.b)) return;
    for (const c of g.b.slice(0, 16) as Json[]) {
      const [lac, cid, rssi] = [n(c?.l), n(c?.c), n(c?.b)];
      if (lac !== undefined && cid !== undefined) cells.push({ mcc, mnc, lac, cid, ...(rssi !== undefined ? { rssi } : {}) });
    }
  },
  wifi: (v, _rec, _cells, wifi) => {
    const list = json(v);
    if (!Array.isArray(list)) return;
    for (const w of list.slice(0, 32) as Json[]) {
      if (typeof w?.m === 'string' && n(w.l) !== undefined) wifi.push({ mac: macColons(w.m.replace(/[-:]/g, '')), rssi: n(w.l)! });
    }
  },
  dbm: intField((x, a) => (a[Attr.rssi] = x)),
  bar: (v, rec) => {
    if (Number.isFinite(Number(v)) && v.trim() !== '') rec.attributes.pressure = Number(v);
  },
  cob: (v, rec) => (rec.attributes.pressureChanges = v),
  u_ids: (v, rec) => (rec.attributes.unpairedIds = v),
};

function decodeHttp(req: HttpRequest, ctx: DecodeContext): HttpDecodeResult {
  if (req.body.length > MAX_BODY) throw new DecodeError('rftrack: body too large');
  const params = new URLSearchParams(req.body.toString('latin1'));
  const id = params.get('i');
  if (!id || id.length > 64) return { status: 400 };
  const rec: DeviceRecord = { attributes: {} };
  const cells: Cell[] = [];
  const wifi: Array<{ mac: string; rssi: number }> = [];
  let deviceTime: number | undefined;
  for (const [key, value] of params) {
    if (key === 't' && INT.test(value)) deviceTime = Number(value);
    else FIELDS[key]?.(value, rec, cells, wifi);
  }
  const holder = ctx.session as { last?: LastFix };
  if (rec.lat !== undefined) {
    rec.time ??= deviceTime;
    rememberFix(holder, rec);
  } else {
    rec.time = deviceTime;
    withLastFix(rec, holder);
  }
  rec.time ??= ctx.now;
  if (cells.length) rec.cells = cells;
  if (wifi.length) rec.attributes.wifi = wifiAttribute(wifi);
  return { deviceId: id, records: [rec], status: 200, body: '{}' };
}

export const protocol: Protocol = {
  name: 'rftrack',
  defaultPort: 5245,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
