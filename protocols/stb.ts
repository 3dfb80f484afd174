/**
 * STB (battery-swap cabinets) JSON messages over TCP, one object each, framed by the shared JSON framer:
 *   {"msgType":110,"devId":...,"txnNo":...}                 login
 *   {"msgType":310,"devId":...,"attrList":[{"id","value"[,"doorId"]}...],"txnNo":...}  properties
 *   {"msgType":410,...}                                      alarm
 * Every message is answered `{"msgType":<type+1>,"devId":...,"result":1,"txnNo":...}`. Property ids with
 * a known meaning: 01101001 location type (1..4 hemispheres, 5 not located), 01102001 longitude, 01103001
 * latitude, 01118001 device temperature, 01122001 battery control, 02301001 cabinet switch command; the
 * others are kept as `id<id>[Door<n>]`.
 */
import { Attr } from './attributes.ts';
import { jsonFramer, jsonObject } from './framers.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 65536;
const MSG_PROPERTY = 310;
const MSG_ALARM = 410;

function properties(list: unknown[], now: number, session: { last?: LastFix }): DeviceRecord {
  const rec: DeviceRecord = { attributes: {} };
  const a = rec.attributes;
  let locationType = 0;
  let lat = 0;
  let lng = 0;
  for (const item of list.slice(0, 1024)) {
    if (!item || typeof item !== 'object') continue;
    const { id, value, doorId } = item as Record<string, unknown>;
    const v = String(value ?? '');
    switch (id) {
      case '01101001':
        locationType = Number(v) || 0;
        break;
      case '01102001':
        lng = Number(v);
        break;
      case '01103001':
        lat = Number(v);
        break;
      case '01118001':
        a[Attr.deviceTemp] = Number(v);
        break;
      case '01122001':
        a.batteryControl = Number(v);
        break;
      case '02301001':
        a.switchCabinetCommand = Number(v);
        break;
      default:
        if (typeof id === 'string' && /^\d{1,16}$/.test(id)) a[`id${id}${doorId !== undefined ? `Door${String(doorId).slice(0, 4)}` : ''}`] = v;
    }
  }
  if (locationType > 0 && Math.abs(lat) <= 90 && Math.abs(lng) <= 180) {
    Object.assign(rec, {
      time: now,
      valid: locationType !== 5,
      lat: locationType === 3 || locationType === 4 ? -lat : lat,
      lng: locationType === 2 || locationType === 4 ? -lng : lng,
    });
    rememberFix(session, rec);
    return rec;
  }
  return withLastFix(rec, session);
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const root = jsonObject(frame, 'stb');
  const type = Number(root.msgType);
  if (typeof root.devId !== 'string' || !Number.isInteger(type)) return {};
  const deviceId = root.devId;
  const reply = Buffer.from(JSON.stringify({ msgType: type + 1, devId: deviceId, result: 1, txnNo: typeof root.txnNo === 'string' ? root.txnNo : null }));
  if (type === MSG_PROPERTY) return { deviceId, records: [properties(Array.isArray(root.attrList) ? root.attrList : [], ctx.now, ctx.session as { last?: LastFix })], reply };
  if (type === MSG_ALARM) return { deviceId, records: [withLastFix({ attributes: { [Attr.event]: MSG_ALARM } }, ctx.session as { last?: LastFix })], reply };
  return { deviceId, reply };
}

export const protocol: Protocol = {
  name: 'stb',
  defaultPort: 5229,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => jsonFramer('stb', MAX_FRAME),
  decode,
  commands: [],
};
