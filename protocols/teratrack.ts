/**
 * TeraTrack (electronic cargo locks) JSON reports over TCP, framed by the shared JSON framer:
 *   {"MDeviceID":..., "IMEI":..., "DateTime":"yyyy-MM-dd HH:mm:ss" (UTC), "Latitude", "Longitude",
 *    "Speed" (km/h), "Mileage", "LockOpen", "CardNo", "LowPower", "Power" (%), "GSM", "MessageAck", ...}
 * All values are strings. A report with `"MessageAck":"1"` is answered `{01}`.
 */
import { Alarm, Attr } from './attributes.ts';
import { jsonFramer, jsonObject } from './framers.ts';
import { latin1, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 16384;
const TIME = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)$/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const root = jsonObject(frame, 'teratrack');
  const get = (key: string) => (typeof root[key] === 'string' ? (root[key] as string) : undefined);
  const deviceId = get('MDeviceID') ?? get('IMEI');
  if (!deviceId) return {};
  const t = TIME.exec(get('DateTime') ?? '');
  const [lat, lng] = [Number(get('Latitude')), Number(get('Longitude'))];
  if (!t || !(Math.abs(lat) <= 90 && Math.abs(lng) <= 180)) throw new DecodeError('teratrack: bad report');
  const a: DeviceRecord['attributes'] = {};
  const numbers: Array<[string, string]> = [['Mileage', Attr.odometer], ['Power', Attr.batteryLevel], ['GSM', Attr.rssi]];
  for (const [key, attr] of numbers) if (get(key) !== undefined && Number.isFinite(Number(get(key)))) a[attr] = Number(get(key));
  if (get('LockOpen') !== undefined) a.lock = get('LockOpen') === '0';
  if (get('CardNo')) a[Attr.driverUniqueId] = get('CardNo')!;
  if (get('LowPower') === '1') a[Attr.alarm] = Alarm.lowPower;
  if (get('IMEI')) a.imei = get('IMEI')!;
  const rec: DeviceRecord = {
    time: utc(Number(t[1]), Number(t[2]), Number(t[3]), Number(t[4]), Number(t[5]), Number(t[6])),
    valid: true,
    lat,
    lng,
    speed: Number(get('Speed')) || 0,
    attributes: a,
  };
  return { deviceId, records: [rec], ...(get('MessageAck') === '1' ? { reply: latin1('{01}') } : {}) };
}

export const protocol: Protocol = {
  name: 'teratrack',
  defaultPort: 5239,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => jsonFramer('teratrack', MAX_FRAME),
  decode,
  commands: [],
};
