/**
 * HYN600 binary protocol: `<5-char header> | u16 frame length | 7 bytes of decimal digit pairs + u8 (IMEI) |
 * u8 device id | body | ... | u16 index | u8 tail`, big-endian. `+RPT:` carries reports, `+ACK:` answers to
 * commands (nothing kept).
 * A report: `u16 version | u8 alarm type | u8 alarm state | u32 mask` then, by mask bit: 0 frame count and
 * id; 1 network type; 2 battery mV and %; 3 locations (u16 location mask, u8 count, each with the fields
 * of LOCATION_FIELDS by bit); 4 cell (mcc, mnc, lac, u32 cid, rssi); 7 upgrade code; 8 events (u32 mask,
 * EVENT_FIELDS); 16 BLE relay/beacon; then the device time (u16 year, month, day, h, m, s).
 * The alarm, battery, cell and events belong to the last location. The devices expect no answer.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { lengthFieldFramer } from './framers.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 2048;
const bit = (mask: number, n: number): boolean => Math.floor(mask / 2 ** n) % 2 === 1;

/** A time, or undefined for the zeros of a location without a fix yet. */
function readTime(r: Reader): number | undefined {
  const [year, month, day, h, m, s] = [r.u16(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  if (year === 0 && month === 0) return undefined;
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= 31 && h < 24 && m < 60 && s < 61)) throw new DecodeError('hyn600: bad time');
  return Date.UTC(year, month - 1, day, h, m, s);
}

/** A satellite block: u8 mask of systems, one count byte each (GPS, BeiDou, Galileo, GLONASS). */
function readSatellites(r: Reader): number {
  const mask = r.u8();
  let total = 0;
  for (let i = 0; i < 4; i++) if (mask & (1 << i)) total += r.u8();
  return total;
}

type RecordField = (r: Reader, rec: DeviceRecord) => void;
/** Location fields by location-mask bit. */
const LOCATION_FIELDS: RecordField[] = [
  (r, rec) => (rec.valid = r.u8() > 0),
  (r, rec) => (rec.hdop = r.u8()),
  (r, rec) => (rec.speed = r.u16()),
  (r, rec) => (rec.course = r.u16() % 360),
  (r, rec) => (rec.altitude = r.i16()),
  (r, rec) => (rec.lat = r.i32() / 1e6),
  (r, rec) => (rec.lng = r.i32() / 1e6),
  (r, rec) => (rec.time = readTime(r)),
  (r, rec) => (rec.satellites = readSatellites(r)),
];

type AttrField = (r: Reader, a: Record<string, AttrValue>) => void;
/** Event fields by event-mask bit (skipped ones are read past). */
const EVENT_FIELDS: AttrField[] = [
  (r, a) => (a[Attr.power] = r.u16() / 100),
  (r, a) => {
    const n = r.u8();
    a[indexed.adc(n)] = r.u16() / 1000;
  },
  (r, a) => {
    const status = r.u8();
    a[Attr.ignition] = status >= 0x20;
    a[Attr.motion] = (status & 0x0f) >= 2;
  },
  (r, a) => (a[Attr.input] = r.u8()),
  (r, a) => (a[Attr.output] = r.u8()),
  (r, a) => {
    a.tripOdometer = r.u16() * 100;
    a[Attr.odometer] = r.u32() * 100;
  },
  (r) => readSatellites(r),
  (r) => r.skip(4), // geofence states
  (r) => r.skip(r.u8()), // id data
  (r) => {
    for (let n = r.u8(); n > 0; n--) {
      r.skip(8); // sensor id
      const m = r.u8();
      if (m & 1) r.skip(2); // temperature
      if (m & 2) r.skip(1); // humidity
    }
  },
  (r) => r.skip(8), // trip and total hours
  (r) => r.skip(9),
  (r) => r.skip(8),
];

const ALARMS: Record<number, (state: number) => string | undefined> = {
  3: (s) => (s === 1 ? Alarm.lowBattery : undefined),
  7: () => Alarm.accident,
  14: (s) => [undefined, Alarm.powerCut, Alarm.powerRestored, Alarm.lowPower][s],
  15: () => Alarm.tow,
  16: () => Alarm.overspeed,
  41: () => Alarm.overspeed,
  19: (s) => [undefined, Alarm.hardBraking, Alarm.hardAcceleration, Alarm.hardCornering][s],
  21: (s) => (s & 1 ? Alarm.geofenceEnter : Alarm.geofenceExit),
  40: (s) => (s & 1 ? Alarm.geofenceEnter : Alarm.geofenceExit),
  32: () => Alarm.jamming,
  33: () => Alarm.tampering,
};

function readBle(r: Reader): void {
  const mask = r.u32();
  if (mask & 1) {
    r.skip(3); // relay number, id, alarm type
    const m = r.u8();
    [6, 2, 1, 1, 1].forEach((n, i) => m & (1 << i) && r.skip(n));
  }
  if (mask & 2) {
    r.skip(3); // beacon number, model
    const m = r.u8();
    [6, 2, 2].forEach((n, i) => m & (1 << i) && r.skip(n));
  }
}

function decodeReport(r: Reader): DeviceRecord[] {
  r.skip(2); // protocol version
  const alarmType = r.u8();
  const alarmState = r.u8();
  const mask = r.u32();
  if (bit(mask, 0)) r.skip(2); // frame count, frame id
  if (bit(mask, 1)) r.skip(1); // network type
  const extra: Record<string, AttrValue> = {};
  if (bit(mask, 2)) {
    extra[Attr.battery] = r.u16() / 1000;
    extra[Attr.batteryLevel] = r.u8();
  }
  const records: DeviceRecord[] = [];
  if (bit(mask, 3)) {
    const locationMask = r.u16();
    for (let n = r.u8(); n > 0; n--) {
      const rec: DeviceRecord = { attributes: {} };
      LOCATION_FIELDS.forEach((read, i) => bit(locationMask, i) && read(r, rec));
      if (rec.lat !== undefined && rec.lng !== undefined && (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180)) throw new DecodeError('hyn600: coordinates out of range');
      records.push(rec);
    }
  }
  if (!records.length) records.push({ attributes: {} });
  const last = records[records.length - 1];
  const alarm = ALARMS[alarmType]?.(alarmState);
  if (alarm) extra[Attr.alarm] = alarm;
  if (bit(mask, 4)) last.cells = [{ mcc: r.u16(), mnc: r.u16(), lac: r.u16(), cid: r.u32(), rssi: r.u8() }];
  if (bit(mask, 7)) r.skip(3); // upgrade code, reserved
  if (bit(mask, 8)) {
    const events = r.u32();
    EVENT_FIELDS.forEach((read, i) => bit(events, i) && read(r, extra));
  }
  if (bit(mask, 16)) readBle(r);
  const deviceTime = readTime(r);
  if (deviceTime === undefined) throw new DecodeError('hyn600: no device time');
  Object.assign(last.attributes, extra);
  for (const rec of records) rec.time ??= deviceTime;
  return records;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  const header = r.ascii(5);
  r.skip(2); // length
  let imei = '';
  for (let i = 0; i < 7; i++) imei += String(r.u8()).padStart(2, '0');
  imei += String(r.u8());
  r.skip(1); // device id
  if (header !== '+RPT:') return { deviceId: imei };
  return { deviceId: imei, records: decodeReport(r) };
}

export const protocol: Protocol = {
  name: 'hyn600',
  defaultPort: 5258,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  // the u16 at offset 5 is the length of the whole frame
  createFramer: () => lengthFieldFramer('hyn600', { offset: 5, size: 2, adjust: -7 }, MAX_FRAME),
  decode,
  commands: [],
};
