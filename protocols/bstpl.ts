/**
 * BSTPL text protocol (AIS-140 style, India), messages cut at `#`:
 *   `BSTPL$<type>,<id>,<A|V>,<ddmmyy>,<hhmmss>,<lat>,<0|N|S>,<lon>,<0|E|W>,<km/h>,<odometer km>,<course>,<satellites>,`
 *   then either `<box open>,<rssi>,<charging>,<ignition>,<engine>,<locked>,<adc>,<x>,<battery V>,<firmware>,<iccid>,<power V>`
 *   or `<rssi>,<box open>,<battery V>,<charging>,<ignition>,<power V>,<altitude>,<x>,<firmware>,<iccid>,
 *   {<rpm>,<CAN odometer>,<fuel>,<gear>,<engine temperature>,<coolant temperature>}`.
 * Types 3 (power), 4, 5, 6, 7, 8 (box opened), 9 are alarms. The devices expect no answer.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const HEAD = String.raw`^BSTPL\$(\d),([^,]+),([AV]),(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(\d+\.\d+),([0NS]),(\d+\.\d+),([0EW]),(\d+),(\d+),(\d+),(\d+),`;
const FIRST = new RegExp(String.raw`${HEAD}([01]),(\d+),([01]),([01]),([01]),([01]),(\d+\.\d+),\d+,(\d+\.\d+),([^,]+),([^,]+),(\d+\.\d+)`);
const SECOND = new RegExp(String.raw`${HEAD}(\d+),([01]),(\d+\.\d+),([01]),([01]),(\d+\.\d+),(\d+),[01],([^,]+),([^,]+),\{(\d+),(\d+),(\d+),(\d+),(\d+\.\d+),(\d+\.\d+)\}`);
const ALARMS: Record<number, string> = { 4: Alarm.lowBattery, 5: Alarm.hardAcceleration, 6: Alarm.hardBraking, 7: Alarm.overspeed, 9: Alarm.sos };

function base(m: RegExpExecArray): DeviceRecord {
  const [, type, , valid, dd, mo, yy, hh, mi, ss, lat, ns, lng, ew, speed, odometer, course, sats] = m;
  const a: Record<string, AttrValue> = { [Attr.odometer]: Number(odometer) * 1000 };
  if (ALARMS[Number(type)]) a[Attr.alarm] = ALARMS[Number(type)];
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: valid === 'A',
    lat: Number(lat) * (ns === 'S' ? -1 : 1),
    lng: Number(lng) * (ew === 'W' ? -1 : 1),
    speed: Number(speed),
    course: Number(course) % 360,
    satellites: Number(sats),
    attributes: a,
  };
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('bstpl: coordinates out of range');
  return rec;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  let m = FIRST.exec(s);
  if (m) {
    const rec = base(m);
    const type = Number(m[1]);
    const [box, rssi, charge, ignition, engine, locked, adc, battery, fw, iccid, power] = m.slice(18);
    const a = rec.attributes;
    if (type === 8 && box === '1') a[Attr.alarm] = Alarm.tampering;
    if (type === 3) a[Attr.alarm] = charge === '1' ? Alarm.powerRestored : Alarm.powerCut;
    Object.assign(a, {
      boxOpen: box === '1', [Attr.rssi]: Number(rssi), [Attr.charge]: charge === '1', [Attr.ignition]: ignition === '1', engine: engine === '1',
      [Attr.blocked]: locked === '1', [indexed.adc(1)]: Number(adc), [Attr.battery]: Number(battery), versionFw: fw, [Attr.iccid]: iccid, [Attr.power]: Number(power),
    });
    return { deviceId: m[2], records: [rec] };
  }
  m = SECOND.exec(s);
  if (!m) throw new DecodeError('bstpl: not a report');
  const rec = base(m);
  const [rssi, box, battery, charge, ignition, power, altitude, fw, iccid, rpm, canOdometer, fuel, gear, engineTemp, coolant] = m.slice(18);
  rec.altitude = Number(altitude);
  Object.assign(rec.attributes, {
    [Attr.rssi]: Number(rssi), boxOpen: box === '1', [Attr.battery]: Number(battery), [Attr.charge]: charge === '1', [Attr.ignition]: ignition === '1',
    [Attr.power]: Number(power), versionFw: fw, [Attr.iccid]: iccid, [Attr.rpm]: Number(rpm), obdOdometer: Number(canOdometer), [Attr.fuel]: Number(fuel),
    gear: Number(gear), engineTemp: Number(engineTemp), [Attr.coolantTemp]: Number(coolant),
  });
  return { deviceId: m[2], records: [rec] };
}

export const protocol: Protocol = {
  name: 'bstpl',
  defaultPort: 5241,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('bstpl', [0x23], MAX_FRAME),
  decode,
  commands: [],
};
