/**
 * Xirgo (XT-2000/XT-4000/XT-6000 series) text protocol: `$$<imei>,<event>,<fields...>##`.
 *
 *   new firmware  imei,event,yyyy/mm/dd,hh:mm:ss,lat,lon,alt,mph,accel,decel,?,course,sats,hdop,miles,fuel
 *                 consumption,battery V,gsm,gps[,reset,<in1><in2><in3><out1>,adc1,fuel level,load,engine hours,
 *                 oil pressure,oil level,oil temp,coolant pressure,coolant level,coolant temp]
 *   old firmware  imei,event,yyyy/mm/dd,hh:mm:ss,lat,lon,alt,mph,course,sats,hdop,battery V,gsm,miles,gps,...
 *   custom        fields named by the configured `form` (`UID,EV,D,T,LT,LN,AL,GSPT,HD,SV,...`), dates mm/dd/yyyy
 * Over UDP every report is acknowledged `!UDP_ACK,<event>,<last field>`.
 * Commands: `+XT:<code>,<params>`.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { FrameError, type AttrValue, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const MPH = 1.609344;

/** Reports end with `##`, some firmware ends them with a line break instead. */
function createFramer(): Framer {
  return {
    next(buffer) {
      const start = buffer.indexOf('$$');
      if (start < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('xirgo: no report start');
        return null;
      }
      const hashes = buffer.indexOf('##', start + 2);
      const line = buffer.indexOf(0x0a, start + 2);
      const end = hashes >= 0 && (line < 0 || hashes < line) ? hashes + 2 : line >= 0 ? line + 1 : -1;
      if (end < 0) {
        if (buffer.length - start > MAX_FRAME) throw new FrameError('xirgo: report too long');
        return null;
      }
      return { frame: buffer.subarray(start, end), consumed: end };
    },
  };
}

/** Event codes that carry a state or an alarm. */
function event(code: number, a: Record<string, AttrValue>): void {
  a[Attr.event] = code;
  if ([4001, 4003, 6011, 6013].includes(code)) a[Attr.ignition] = true;
  else if ([4002, 4004, 6012, 6014].includes(code)) a[Attr.ignition] = false;
  else if (code === 4005) a[Attr.charge] = false;
  else if (code === 6030 || code === 6071) a[Attr.motion] = true;
  else if (code === 6031) a[Attr.motion] = false;
  const alarm = ({ 6002: Alarm.overspeed, 6006: Alarm.hardAcceleration, 6007: Alarm.hardBraking, 6008: Alarm.lowPower, 6009: Alarm.powerCut, 6010: Alarm.powerRestored, 6016: Alarm.idle, 6017: Alarm.tow, 6032: Alarm.parking, 6090: Alarm.removing, 6091: Alarm.lowBattery } as Record<number, string>)[code];
  if (alarm) a[Attr.alarm] = alarm;
}

const NUM = /^-?\d+(?:\.\d+)?$/;
const INT = /^\d+$/;
const num = (s: string | undefined) => (s !== undefined && NUM.test(s) ? Number(s) : undefined);

function position(rec: DeviceRecord, lat: string, lng: string): boolean {
  const la = num(lat);
  const lo = num(lng);
  if (la === undefined || lo === undefined || Math.abs(la) > 90 || Math.abs(lo) > 180) return false;
  Object.assign(rec, { lat: la, lng: lo });
  return true;
}

function dateTime(d: string, t: string, monthFirst: boolean): number | undefined {
  const dm = monthFirst ? /^(\d\d)\/(\d\d)\/(\d{4})$/.exec(d) : /^(\d{4})\/(\d\d)\/(\d\d)$/.exec(d);
  const tm = /^(\d\d):(\d\d):(\d\d)$/.exec(t);
  if (!dm || !tm) return undefined;
  const [y, mo, day] = monthFirst ? [dm[3], dm[1], dm[2]] : [dm[1], dm[2], dm[3]];
  return Date.UTC(Number(y), Number(mo) - 1, Number(day), Number(tm[1]), Number(tm[2]), Number(tm[3]));
}

/** Fixed layouts: the new one when its fields fit, else the old one. */
function decodeFixed(f: string[]): DeviceRecord | undefined {
  const time = dateTime(f[2], f[3], false);
  if (time === undefined || !INT.test(f[1])) return undefined;
  const rec: DeviceRecord = { time, attributes: {} };
  const a = rec.attributes;
  if (!position(rec, f[4], f[5])) return undefined;
  event(Number(f[1]), a);
  rec.altitude = num(f[6]) ?? 0;
  rec.speed = (num(f[7]) ?? 0) * MPH;
  const isNew = f.length >= 19 && INT.test(f[10]) && /^\d+\.\d+$/.test(f[16]) && INT.test(f[17]) && INT.test(f[18]);
  if (isNew) {
    rec.course = (num(f[11]) ?? 0) % 360;
    rec.satellites = num(f[12]);
    rec.hdop = num(f[13]);
    a[Attr.odometer] = Math.round((num(f[14]) ?? 0) * MPH * 1000);
    if (num(f[15]) !== undefined) a[Attr.fuelConsumption] = Number(f[15]);
    a[Attr.battery] = Number(f[16]);
    a[Attr.rssi] = Number(f[17]);
    rec.valid = f[18] === '1';
    const io = /^([01])([01])([01])([01])$/.exec(f[20] ?? '');
    if (io && f.length >= 31) {
      for (let i = 1; i <= 3; i++) a[indexed.in(i)] = io[i] === '1';
      a[indexed.out(1)] = io[4] === '1';
      const extras: Array<[string, string | undefined]> = [
        [indexed.adc(1), f[21]], [Attr.fuelLevel, f[22]], [Attr.engineLoad, f[23]], [Attr.hours, f[24]], ['oilPressure', f[25]],
        ['oilLevel', f[26]], ['oilTemp', f[27]], ['coolantPressure', f[28]], ['coolantLevel', f[29]], [Attr.coolantTemp, f[30]],
      ];
      for (const [key, v] of extras) if (num(v) !== undefined) a[key] = key === Attr.hours ? Number(v) * 3_600_000 : Number(v);
    }
    return rec;
  }
  if (f.length < 15) return undefined;
  rec.course = (num(f[8]) ?? 0) % 360;
  rec.satellites = num(f[9]);
  rec.hdop = num(f[10]);
  if (num(f[11]) !== undefined) a[Attr.battery] = Number(f[11]);
  if (num(f[12]) !== undefined) a[Attr.rssi] = Number(f[12]);
  a[Attr.odometer] = Math.round((num(f[13]) ?? 0) * MPH * 1000);
  rec.valid = f[14] === '1';
  return rec;
}

/** Layout named by the configured form. */
function decodeCustom(form: string[], f: string[]): { deviceId?: string; record?: DeviceRecord } {
  if (f.length < form.length) return {};
  const rec: DeviceRecord = { attributes: {} };
  const a = rec.attributes;
  let deviceId: string | undefined;
  let date = '';
  let time = '';
  let lat = '';
  let lng = '';
  form.forEach((key, i) => {
    const v = f[i];
    const n = num(v);
    switch (key) {
      case 'UID': case 'IM': deviceId = v; break;
      case 'EV': if (n !== undefined) event(n, a); break;
      case 'D': date = v; break;
      case 'T': time = v; break;
      case 'LT': lat = v; break;
      case 'LN': lng = v; break;
      case 'AL': if (n !== undefined) rec.altitude = n; break;
      case 'GSPT': if (n !== undefined) rec.speed = n; break;
      case 'HD': if (n !== undefined) rec.course = (v.includes('.') ? n : n / 10) % 360; break;
      case 'SV': if (n !== undefined) rec.satellites = n; break;
      case 'HP': if (n !== undefined) rec.hdop = n; break;
      case 'BV': if (n !== undefined) a[Attr.battery] = n; break;
      case 'CQ': if (n !== undefined) a[Attr.rssi] = n; break;
      case 'MI': if (n !== undefined) a[Attr.odometer] = n; break;
      case 'GS': rec.valid = v === '3'; break;
      case 'SI': if (v) a[Attr.iccid] = v; break;
      case 'IG': if (n !== undefined && n > 0) a[Attr.ignition] = n === 1; break;
      case 'OT': if (n !== undefined) a[Attr.output] = n; break;
    }
  });
  const t = dateTime(date, time, true);
  if (t === undefined || !position(rec, lat, lng)) return { deviceId };
  rec.time = t;
  return { deviceId, record: rec };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  if (!s.startsWith('$$')) return {};
  const body = s.replace(/^\$\$/, '').replace(/#+$/, '');
  const f = body.split(',');
  const ack = ctx.transport === 'udp' && /^\d+$/.test(f[1] ?? '') && s.endsWith('##') ? Buffer.from(`!UDP_ACK,${f[1]},${f[f.length - 1]}`, 'latin1') : undefined;
  if (typeof ctx.config.form === 'string' && ctx.config.form) {
    const { deviceId, record } = decodeCustom(ctx.config.form.split(','), f);
    return { deviceId, records: record ? [record] : [], reply: ack };
  }
  if (!/^\d+$/.test(f[0])) return {};
  const record = f.length >= 8 ? decodeFixed(f) : undefined;
  return { deviceId: f[0], records: record ? [record] : [], reply: ack };
}

// ---- commands ---------------------------------------------------------------------------------

function encode(command: Command, _ctx: EncodeContext): Buffer {
  switch (command.type) {
    // output state: the data value plus one (1 off, 2 on)
    case 'outputControl':
      return Buffer.from(`+XT:7005,${Number(command.attributes.data ?? 0) + 1},1`, 'latin1');
    case 'custom':
      return Buffer.from(String(command.attributes.data ?? ''), 'latin1');
    default:
      throw new Error(`xirgo: unsupported command ${command.type}`);
  }
}

export const protocol: Protocol = {
  name: 'xirgo',
  defaultPort: 5081,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: ['outputControl', 'custom'],
  carriesText: false,
  encode,
};
