/**
 * JMAK text protocol: `~<mask hex>;<fields...>[|<CAN mask hex>;<CAN fields...>]$`, answered `ACK`.
 *
 * Each bit of the mask says whether its field is present, in bit order: 0 serial, 1 IMEI, 2 counter,
 * 3 nickname, 4 fix time (ms), 5 latitude, 6 longitude, 7 altitude, 8 (reserved), 9 km/h, 10 satellites,
 * 11 signal, 12 hdop, 13 course, 14 ignition, 15 backup battery in use, 16 engine hours, 17 odometer km,
 * 18 event id, 19 event status, 20 event name, 21 power mV, 22 battery mV, 23 operator, 24 network type,
 * 25 device time (ms), 26 fix valid, 27 IO bits, 28 driver id, 29..34 message fields.
 * CAN mask: 0 odometer km, 1 engine hours, 2 speed, 3 rpm, 4 status, 5 -, 6 throttle, 7 -, 8 fuel level,
 * 9 -, 10 autonomy, 11 -, 12 fuel consumption, 13 fuel used, 14 oil temperature.
 * JSON reports (`{"imei":..,"ts":<ms>,"gps":[lat,lon],"alt","speed","nsat","hdop","azi","ive","bat","odomt","hourmt",...}`)
 * carry the same values by name; binary ones (`^...`) are only acknowledged.
 */
import { Attr, indexed } from './attributes.ts';
import { FrameError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const ACK = Buffer.from('ACK', 'latin1');

/** Text reports (`~`) and binary ones (`^`) run to `$`, JSON ones (`{`) to their closing brace, others to a line break. */
function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && (buffer[start] === 0x0d || buffer[start] === 0x0a)) start++;
      if (start >= buffer.length) return null;
      const first = buffer[start];
      const toDollar = first === 0x7e || first === 0x5e;
      let depth = 0;
      let quoted = false;
      for (let i = start; i < buffer.length; i++) {
        const b = buffer[i];
        if (i - start > MAX_FRAME) throw new FrameError('jmak: message too long');
        if (first === 0x7b) {
          if (b === 0x22 && buffer[i - 1] !== 0x5c) quoted = !quoted;
          else if (!quoted && b === 0x7b) depth++;
          else if (!quoted && b === 0x7d && --depth === 0) return { frame: buffer.subarray(start, i + 1), consumed: i + 1 };
        } else if (toDollar) {
          if (b === 0x24) return { frame: buffer.subarray(start, i + 1), consumed: i + 1 };
        } else if (b === 0x0d || b === 0x0a) return { frame: buffer.subarray(start, i), consumed: i + 1 };
      }
      if (buffer.length - start > MAX_FRAME) throw new FrameError('jmak: message too long');
      return null;
    },
  };
}

const bit = (mask: bigint, n: number) => ((mask >> BigInt(n)) & 1n) === 1n;
const num = (s: string | undefined) => (s !== undefined && /^-?\d+(?:\.\d+)?$/.test(s) ? Number(s) : undefined);

function decodeEvent(values: string[], rec: DeviceRecord): void {
  const a = rec.attributes;
  const mask = BigInt(`0x${values[0]}`);
  let i = 1;
  const next = (n: number) => (bit(mask, n) ? values[i++] : undefined);
  const setNum = (key: string, v: string | undefined, scale = 1) => {
    const n = num(v);
    if (n !== undefined) a[key] = n * scale;
  };
  next(0); // serial
  next(1); // imei
  setNum(indexed.count(1), next(2));
  const nickname = next(3);
  if (nickname && nickname !== 'NULL') a.nickname = nickname;
  const time = num(next(4));
  if (time !== undefined) rec.time = time;
  const lat = num(next(5));
  const lng = num(next(6));
  if (lat !== undefined && lng !== undefined && Math.abs(lat) <= 90 && Math.abs(lng) <= 180) Object.assign(rec, { lat, lng });
  const altitude = num(next(7));
  if (altitude !== undefined) rec.altitude = altitude;
  next(8);
  const speed = num(next(9));
  if (speed !== undefined) rec.speed = speed;
  const sats = num(next(10));
  if (sats !== undefined) rec.satellites = sats;
  setNum(Attr.rssi, next(11));
  const hdop = num(next(12));
  if (hdop !== undefined) rec.hdop = hdop;
  const course = num(next(13));
  if (course !== undefined) rec.course = course % 360;
  const ignition = next(14);
  if (ignition !== undefined) a[Attr.ignition] = ignition === '1';
  const backup = next(15);
  if (backup !== undefined) a.backup = backup === '1';
  setNum(Attr.hours, next(16), 3_600_000);
  setNum(Attr.odometer, next(17), 1000);
  const eventId = num(next(18));
  if (eventId !== undefined) a[Attr.event] = eventId;
  const eventStatus = num(next(19));
  if (eventStatus !== undefined) a.eventStatus = eventStatus;
  const eventName = next(20);
  if (eventName) a.eventName = eventName;
  if (eventId === 126 && eventStatus === 4 && eventName) a[Attr.driverUniqueId] = eventName;
  setNum(Attr.power, next(21), 0.001);
  setNum(Attr.battery, next(22), 0.001);
  const operator = next(23);
  if (operator) a[Attr.operator] = operator;
  next(24);
  next(25); // device time
  const valid = num(next(26));
  rec.valid = valid === undefined ? rec.lat !== undefined : valid >= 1;
  const io = num(next(27));
  if (io !== undefined) {
    Object.assign(a, { [indexed.in(1)]: (io & 1) === 1, [indexed.in(2)]: (io & 2) === 2, [indexed.out(1)]: (io & 4) === 4, [indexed.out(2)]: (io & 8) === 8 });
  }
  const driver = next(28);
  if (driver && driver !== '0') a[Attr.driverUniqueId] = driver;
  next(29);
  const message = next(30);
  if (message) a.message = message;
}

const CAN_KEYS: Array<[number, string, number]> = [
  [0, 'obdOdometer', 1000], [1, Attr.hours, 3_600_000], [2, Attr.obdSpeed, 1], [3, Attr.rpm, 1], [4, 'canStatus', 1],
  [6, Attr.throttle, 1], [8, Attr.fuelLevel, 1], [10, 'autonomy', 1], [12, Attr.fuelConsumption, 1], [13, Attr.fuelUsed, 1], [14, 'oilTemp', 1],
];

function decodeCan(values: string[], a: Record<string, AttrValue>): void {
  if (!/^[0-9A-Fa-f]{1,16}$/.test(values[0] ?? '')) return;
  const mask = BigInt(`0x${values[0]}`);
  let i = 1;
  const byBit = new Map(CAN_KEYS.map(([b, key, scale]) => [b, [key, scale] as const]));
  for (let b = 0; b <= 14; b++) {
    if (!bit(mask, b)) continue;
    const v = num(values[i++]);
    const target = byBit.get(b);
    if (target && v !== undefined) a[target[0]] = v * target[1];
  }
}

/** The JSON form: the same values under short names. */
function decodeJson(s: string): DecodeResult {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(s) as Record<string, unknown>;
  } catch {
    return { reply: ACK };
  }
  const n = (key: string) => (typeof o[key] === 'number' && Number.isFinite(o[key]) ? (o[key] as number) : undefined);
  const imei = n('imei');
  const gps = Array.isArray(o.gps) ? (o.gps as unknown[]) : [];
  const [lat, lng] = gps.map((v) => (typeof v === 'number' ? v : NaN));
  if (imei === undefined || !Number.isInteger(imei)) return { reply: ACK };
  const rec: DeviceRecord = { attributes: {} };
  const a = rec.attributes;
  const ts = n('ts');
  if (ts !== undefined) rec.time = ts;
  if (Math.abs(lat) <= 90 && Math.abs(lng) <= 180) Object.assign(rec, { lat, lng, valid: n('fix') === undefined || n('fix')! >= 1 });
  const fields: Array<[string, (v: number) => void]> = [
    ['alt', (v) => (rec.altitude = v)], ['speed', (v) => (rec.speed = v)], ['nsat', (v) => (rec.satellites = v)], ['hdop', (v) => (rec.hdop = v)],
    ['azi', (v) => (rec.course = v % 360)], ['rssi', (v) => (a[Attr.rssi] = v)], ['ive', (v) => (a[Attr.ignition] = v === 1)],
    ['bckup', (v) => (a.backup = v === 1)], ['hourmt', (v) => (a[Attr.hours] = v * 3_600_000)], ['odomt', (v) => (a[Attr.odometer] = v * 1000)],
    ['bat', (v) => (a[Attr.battery] = v / 1000)], ['vin', (v) => (a[Attr.power] = v / 1000)], ['cnt', (v) => (a[indexed.count(1)] = v)],
  ];
  for (const [key, set] of fields) {
    const v = n(key);
    if (v !== undefined) set(v);
  }
  if (typeof o.ope === 'string' && o.ope) a[Attr.operator] = o.ope;
  return { deviceId: String(imei), records: [rec], reply: ACK };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  if (s.startsWith('{')) return decodeJson(s);
  if (s.startsWith('^')) return { reply: ACK };
  if (!s.startsWith('~')) return {};
  const [event, can] = s.slice(1).replace(/\$$/, '').split('|');
  const values = event.split(';');
  if (!/^[0-9A-Fa-f]{1,16}$/.test(values[0]) || !/^\d{6,20}$/.test(values[2] ?? '')) return {};
  const rec: DeviceRecord = { attributes: {} };
  decodeEvent(values, rec);
  if (can) decodeCan(can.split(';'), rec.attributes);
  return { deviceId: values[2], records: [rec], reply: ACK };
}

export const protocol: Protocol = {
  name: 'jmak',
  defaultPort: 5259,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  carriesText: false,
};
