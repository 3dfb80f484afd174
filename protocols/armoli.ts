/**
 * Armoli text protocol: bracketed messages ending at `;`, the letter after `[` saying what they are.
 *   `[M<imei><ddmmyy><hhmmss><N|S>dd.dddddd<E|W>ddd.dddddd<valid><sats hex><speed km/h hex 2><course 3>
 *    <adc1 hex 3><adc2 hex 3><status hex 2><max speed hex 2><distance hex 6>[hdop dd]<idle hex 4>
 *    [:alarms][G<g-sensor 6>][H<power hex 3>][E<battery hex 3>][!driver][@A<obd>]...]` is a report; the OBD
 *    part is `>`-separated mode-01 answers `<len><41><pid><value>` (hex).
 *   `[W<imei>,<text>]` answers a command; `[L<imei>]` logs in and `[Q...]` asks for the server's time
 *   (both answered `[TX,];;`, the server's acknowledgement).
 */
import { Attr, indexed } from './attributes.ts';
import { setObdValue } from './obd.ts';
import { delimitedFramer, latin1, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const ACK = latin1('[TX,];;');

const REPORT = new RegExp(
  String.raw`^\[M(\d{15})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)([NS])(\d\d\.\d{6})([EW])(\d{3}\.\d{6})(\d)([0-9A-F])([0-9A-F]{2})(\d{3})` +
    String.raw`([0-9A-F]{3})([0-9A-F]{3})([0-9A-F]{2})([0-9A-F]{2})([0-9A-F]{6})(\d\d)?[0-9A-F]{4}` +
    String.raw`(?::([0-9A-F]+))?(?:G([0-9A-F]{6}))?(?:H([0-9A-F]{3}))?(?:E([0-9A-F]{3}))?(?:!([0-9A-F]+))?(?:@A([>0-9A-F]+))?`,
);

function report(text: string): DecodeResult {
  const m = REPORT.exec(text);
  if (!m) throw new DecodeError('armoli: not a report');
  const [, imei, dd, mo, yy, hh, mi, ss, ns, lat, ew, lng, valid, sats, speed, course, adc1, adc2, status, maxSpeed, distance, hdop, alarms, gSensor, power, battery, driver, obd] = m;
  const hex = (v: string) => parseInt(v, 16);
  const rec: DeviceRecord = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: Number(valid) > 0,
    lat: ns === 'S' ? -Number(lat) : Number(lat),
    lng: ew === 'W' ? -Number(lng) : Number(lng),
    speed: hex(speed),
    course: Number(course) % 360,
    satellites: hex(sats),
    attributes: {
      [indexed.adc(1)]: hex(adc1) / 27,
      [indexed.adc(2)]: hex(adc2) / 27,
      [Attr.status]: hex(status),
      maxSpeed: hex(maxSpeed),
      [Attr.odometer]: hex(distance),
    },
  };
  if (Math.abs(rec.lng!) > 180) throw new DecodeError('armoli: longitude out of range');
  const a = rec.attributes;
  if (hdop) rec.hdop = Number(hdop) / 10;
  if (alarms) a.alarms = alarms;
  if (gSensor) a.gSensor = gSensor;
  if (power) a[Attr.power] = hex(power) / 100;
  if (battery) a[Attr.battery] = hex(battery) / 100;
  if (driver) a[Attr.driverUniqueId] = driver;
  if (obd) {
    for (const value of obd.split('>').slice(1)) {
      if (value.length > 6 && value.length <= 14) setObdValue(a, hex(value.slice(4, 6)), hex(value.slice(6)));
    }
  }
  return { deviceId: imei, records: [rec] };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const text = frame.toString('latin1').trim().replace(/;+$/, '');
  switch (text[1]) {
    case 'M':
      return report(text);
    case 'W': {
      const m = /^\[W(\d{15})?,(.*?)\]?$/.exec(text);
      if (!m) throw new DecodeError('armoli: bad command answer');
      return { ...(m[1] ? { deviceId: m[1] } : {}), records: [{ attributes: { [Attr.result]: m[2] } }] };
    }
    case 'L': {
      const imei = /^\[L(\d{15})/.exec(text)?.[1];
      return { ...(imei ? { deviceId: imei } : {}), reply: ACK };
    }
    case 'Q':
      return { reply: ACK };
    default:
      throw new DecodeError('armoli: unknown message');
  }
}

export const protocol: Protocol = {
  name: 'armoli',
  defaultPort: 5238,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('armoli', [0x3b, 0x0d, 0x0a], MAX_FRAME),
  decode,
  commands: [],
};
