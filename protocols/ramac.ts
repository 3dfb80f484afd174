/**
 * RAMAC (P1 personal alarms) over HTTP: a JSON POST with `DeviceId`, `PacketType` (0 status, 1 location,
 * 2 alert), `SeqNumber`, `UpdateDate` and `LocationDateTime` (`yyyy-MM-dd HH:mm:ss`, UTC), `Alert` and
 * `AlertMessage`, `Event`, `GpsEvent`, `BatteryPercentage`, `Battery` (V), `Latitude`, `Longitude`, `Speed`,
 * `COG`. A packet without coordinates takes the last known fix, not valid. Answer: 200 with
 * `{"CaseID":1,"EventID":1}`; 400 for a body without a device id.
 */
import { Alarm, Attr } from './attributes.ts';
import { jsonObjectBody, numberMember } from './json-body.ts';
import { fixOrLast, type LastFix } from './last-fix.ts';
import { utc } from './text.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DeviceRecord, type HttpDecodeResult, type HttpRequest, type Protocol } from './types.ts';

const MAX_BODY = 65536;
const ANSWER = '{"CaseID":1,"EventID":1}';

function dateTime(v: unknown): number | undefined {
  const m = typeof v === 'string' ? /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)$/.exec(v) : null;
  return m ? utc(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6]) : undefined;
}

/** The alarm an alert's text names (RAMAC alert codes are configurable; their texts are not). */
function alarmOf(message: string): string | undefined {
  if (/panic|help|sos/i.test(message)) return Alarm.sos;
  if (/low battery/i.test(message)) return Alarm.lowBattery;
  if (/fall/i.test(message)) return Alarm.fallDown;
  return undefined;
}

function decodeHttp(req: HttpRequest, ctx: DecodeContext): HttpDecodeResult {
  const j = jsonObjectBody(req.body, MAX_BODY, 'ramac');
  const deviceId = j?.DeviceId;
  if (!j || typeof deviceId !== 'string' || !/^[\x21-\x7e]{1,64}$/.test(deviceId)) return { status: 400 };
  const a: Record<string, AttrValue> = {};
  const put = (name: string, v: unknown) => {
    if (typeof v === 'number' && Number.isFinite(v)) a[name] = v;
  };
  put('packetType', j.PacketType);
  put(Attr.index, j.SeqNumber);
  put(Attr.event, j.Event);
  put('gpsEvent', j.GpsEvent);
  put(Attr.batteryLevel, j.BatteryPercentage);
  put(Attr.battery, j.Battery);
  put(Attr.deviceTemp, j.Temperature);
  const alert = numberMember(j, 'Alert');
  if (alert) {
    a.alert = alert;
    const text = typeof j.AlertMessage === 'string' ? j.AlertMessage : '';
    if (text) a.alertMessage = text.slice(0, 128);
    const alarm = alarmOf(text);
    if (alarm) a[Attr.alarm] = alarm;
  }
  const updated = dateTime(j.UpdateDate);
  const rec: DeviceRecord = { time: updated, attributes: a };
  const [lat, lng] = [numberMember(j, 'Latitude'), numberMember(j, 'Longitude')];
  if (lat !== undefined && lng !== undefined) {
    if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('ramac: coordinates out of range');
    Object.assign(rec, { time: dateTime(j.LocationDateTime) ?? updated ?? ctx.now, valid: true, lat, lng });
    const speed = numberMember(j, 'Speed');
    const course = numberMember(j, 'COG');
    if (speed !== undefined && speed >= 0) rec.speed = speed;
    if (course !== undefined && course >= 0) rec.course = course % 360;
  }
  fixOrLast(ctx.session as { last?: LastFix }, rec, ctx.now);
  return { deviceId, records: [rec], status: 200, body: ANSWER };
}

export const protocol: Protocol = {
  name: 'ramac',
  defaultPort: 5251,
  transports: ['http'],
  maxFrameSize: MAX_BODY,
  decodeHttp,
};
