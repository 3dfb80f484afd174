/**
 * Digital Matter HTTP (JSON POSTs), in two shapes:
 *  - the traditional upload `{IMEI, Records: [{SeqNo, Reason, DateUTC, Fields: [...]}]}`, each field typed by
 *    `FType`: 0 GPS (`GpsUTC`, `Lat`, `Long`, `Alt`, `Spd` cm/s, `Head`, `PosAcc`, `GpsStat`), 2 digital
 *    IO (`DIn`, `DOut`, `DevStat`), 6 analogue data (`AnalogueData` by id); times `yyyy-MM-dd HH:mm:ss` UTC;
 *  - the newer upload of one record `{date (ISO), device: {imei}, sqn, reason, lat, lng, posAcc, analogues:
 *    [{id, val}], inputs, outputs, status, counters: [{id, val}]}`.
 * Analogue ids: 1 internal battery (mV), 2 external supply (10 mV), 3 internal temperature (0.01 °C),
 * 4 signal, 5 solar or second supply (mV); counters 0 battery (mV), 1 battery level (0.01 %).
 * A record without a position is a status record. Answer: HTTP 200, 400 for a body that is neither shape.
 */
import { Attr, indexed } from './attributes.ts';
import { jsonObjectBody, member, numberMember, type JsonObject } from './json-body.ts';
import type { AttrValue, DecodeContext, DeviceRecord, HttpDecodeResult, HttpRequest, Protocol } from './types.ts';

const MAX_BODY = 1024 * 1024;
const MAX_RECORDS = 1000;

const objects = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter((x): x is JsonObject => !!x && typeof x === 'object' && !Array.isArray(x)).slice(0, MAX_RECORDS) : []);
const int = (o: JsonObject, key: string): number | undefined => {
  const v = numberMember(o, key);
  return v !== undefined && Number.isInteger(v) ? v : undefined;
};

function time(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const t = Date.parse(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(value) ? `${value.replace(' ', 'T')}Z` : value);
  return Number.isFinite(t) ? t : undefined;
}

function analogue(a: Record<string, AttrValue>, id: number, val: number): void {
  switch (id) {
    case 1: a[Attr.battery] = val / 1000; break;
    case 2: a[Attr.power] = val / 100; break;
    case 3: a[Attr.deviceTemp] = val / 100; break;
    case 4: a[Attr.rssi] = val; break;
    case 5: a.solarPower = val / 1000; break;
    default: a[indexed.adc(id)] = val;
  }
}

function setPosition(rec: DeviceRecord, lat: number | undefined, lng: number | undefined): void {
  if (lat === undefined || lng === undefined || Math.abs(lat) > 90 || Math.abs(lng) > 180) return;
  rec.lat = lat;
  rec.lng = lng;
}

function traditional(root: JsonObject, imei: string): HttpDecodeResult {
  const records: DeviceRecord[] = [];
  for (const r of objects(root.Records)) {
    const rec: DeviceRecord = { time: time(r.DateUTC), attributes: {} };
    const a = rec.attributes;
    const seq = int(r, 'SeqNo');
    const reason = int(r, 'Reason');
    if (seq !== undefined) a[Attr.index] = seq;
    if (reason !== undefined) a[Attr.event] = reason;
    for (const f of objects(r.Fields)) {
      switch (f.FType) {
        case 0: {
          setPosition(rec, numberMember(f, 'Lat'), numberMember(f, 'Long'));
          if (rec.lat === undefined) break;
          rec.time = time(f.GpsUTC) ?? rec.time;
          rec.valid = (numberMember(f, 'GpsStat') ?? 0) > 0;
          const [alt, spd, head, acc] = [numberMember(f, 'Alt'), numberMember(f, 'Spd'), numberMember(f, 'Head'), numberMember(f, 'PosAcc')];
          if (alt !== undefined) rec.altitude = alt;
          if (spd !== undefined && spd >= 0) rec.speed = (spd * 36) / 1000; // cm/s -> km/h
          if (head !== undefined && head >= 0) rec.course = head % 360;
          if (acc !== undefined && acc >= 0) rec.precision = acc;
          break;
        }
        case 2: {
          const [input, output, status] = [int(f, 'DIn'), int(f, 'DOut'), int(f, 'DevStat')];
          if (input !== undefined) {
            a[Attr.ignition] = (input & 1) !== 0;
            a[Attr.input] = input;
          }
          if (output !== undefined) a[Attr.output] = output;
          if (status !== undefined) a[Attr.status] = status;
          break;
        }
        case 6:
          for (const [id, val] of Object.entries(member(f, 'AnalogueData'))) {
            if (/^\d{1,3}$/.test(id) && typeof val === 'number' && Number.isFinite(val)) analogue(a, Number(id), val);
          }
          break;
      }
    }
    if (rec.time !== undefined) records.push(rec);
  }
  return { deviceId: imei, records, status: 200, body: '' };
}

function edge(root: JsonObject, imei: string): HttpDecodeResult {
  const rec: DeviceRecord = { time: time(root.date), attributes: {} };
  if (rec.time === undefined) return { deviceId: imei, status: 400 };
  const a = rec.attributes;
  setPosition(rec, numberMember(root, 'lat'), numberMember(root, 'lng'));
  if (rec.lat !== undefined) {
    rec.valid = true;
    const acc = numberMember(root, 'posAcc');
    if (acc !== undefined && acc >= 0) rec.precision = acc;
  }
  const [sqn, reason, inputs, outputs, status] = [int(root, 'sqn'), int(root, 'reason'), int(root, 'inputs'), int(root, 'outputs'), int(root, 'status')];
  if (sqn !== undefined) a[Attr.index] = sqn;
  if (reason !== undefined) a[Attr.event] = reason;
  for (const x of objects(root.analogues)) {
    const [id, val] = [int(x, 'id'), numberMember(x, 'val')];
    if (id !== undefined && id >= 0 && val !== undefined) analogue(a, id, val);
  }
  if (inputs !== undefined) {
    a[Attr.ignition] = (inputs & 1) !== 0;
    a[Attr.input] = inputs;
  }
  if (outputs !== undefined) a[Attr.output] = outputs;
  if (status !== undefined) a[Attr.status] = status;
  for (const c of objects(root.counters)) {
    const [id, val] = [int(c, 'id'), numberMember(c, 'val')];
    if (id === undefined || id < 0 || val === undefined) continue;
    if (id === 0) a[Attr.battery] = val / 1000;
    else if (id === 1) a[Attr.batteryLevel] = val / 100;
    else a[`counter${id}`] = val;
  }
  return { deviceId: imei, records: [rec], status: 200, body: '' };
}

const identity = (v: unknown): string | undefined => (typeof v === 'string' && /^\w{1,32}$/.test(v) ? v : typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : undefined);

function decodeHttp(req: HttpRequest, _ctx: DecodeContext): HttpDecodeResult {
  const root = jsonObjectBody(req.body, MAX_BODY, 'dmthttp');
  if (!root) return { status: 400 };
  if (root.device !== undefined) {
    const imei = identity(member(root, 'device').imei);
    return imei ? edge(root, imei) : { status: 400 };
  }
  const imei = identity(root.IMEI);
  return imei && Array.isArray(root.Records) ? traditional(root, imei) : { status: 400 };
}

export const protocol: Protocol = {
  name: 'dmthttp',
  defaultPort: 5139,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
