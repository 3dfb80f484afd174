/**
 * Plugin (DingTek-style fleet units) text reports, one per line:
 *   [$$STATUS|$$ALARM][,]<id>,<yyyyMMddHHmmss>,<lon>,<lat>,<km/h>,<course>,<altitude>,<sats>,<type>,
 *   <odometer km>,<status bits>,<fuel %>,<...>,0[,<temp 1>,<temp 2>,<oil>,<rpm>,<obd speed>,<up>,<down>,
 *   <obd status>,<intake temp>,<throttle 0.1 %>,<supply 0.1 V>][,+,<event>,...]
 * Status bits: 0 fix valid, 1 ignition, 20..23 inputs 1..4. Every message is answered with `$$hb,1#`.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { delimitedFramer, latin1, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPLY = latin1('$$hb,1#');
const REPORT = new RegExp(
  '^[^0-9,]*,?([^,]+),(\\d{4})(\\d\\d)(\\d\\d)(\\d\\d)(\\d\\d)(\\d\\d),(-?\\d+\\.\\d+),(-?\\d+\\.\\d+),(\\d+\\.?\\d*),(\\d+),(-?\\d+),(-?\\d+),\\d+,(\\d+\\.?\\d*),(\\d+),(\\d+\\.?\\d*),[^,]*,0' +
    '(?:,(-?\\d+\\.?\\d*),(-?\\d+\\.?\\d*),\\d+,(\\d+),(\\d+),\\d+,\\d+,\\d+,\\d+,(\\d+),(\\d+))?(?:,\\+,(\\d+),)?',
);
const EVENT_ALARMS: Record<number, string> = { 11317: Alarm.hardAcceleration, 11319: Alarm.hardBraking };

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return { reply: REPLY };
  const [lng, lat] = [Number(m[8]), Number(m[9])];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('plugin: coordinates out of range');
  const status = Number(m[15]);
  const a: DeviceRecord['attributes'] = { [Attr.odometer]: Math.round(Number(m[14]) * 1000), [Attr.ignition]: (status & 2) !== 0, [Attr.status]: status, [Attr.fuelLevel]: Number(m[16]) };
  for (let i = 0; i < 4; i++) a[indexed.in(i + 1)] = Math.floor(status / 2 ** (20 + i)) % 2 === 1;
  if (m[17] !== undefined) {
    Object.assign(a, { [indexed.temp(1)]: Number(m[17]), [indexed.temp(2)]: Number(m[18]), [Attr.rpm]: Number(m[19]), [Attr.obdSpeed]: Number(m[20]), [Attr.throttle]: Number(m[21]) / 10, [Attr.power]: Number(m[22]) / 10 });
  }
  if (m[23] !== undefined) {
    const event = Number(m[23]);
    a[Attr.event] = event;
    if (EVENT_ALARMS[event]) a[Attr.alarm] = EVENT_ALARMS[event];
  }
  const rec: DeviceRecord = {
    time: utc(Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7])),
    valid: (status & 1) !== 0,
    lat,
    lng,
    speed: Number(m[10]),
    course: Number(m[11]) % 360,
    altitude: Number(m[12]),
    satellites: Math.max(0, Number(m[13])),
    attributes: a,
  };
  return { deviceId: m[1], records: [rec], reply: REPLY };
}

export const protocol: Protocol = {
  name: 'plugin',
  defaultPort: 5192,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('plugin', [0x0d, 0x0a], MAX_FRAME),
  decode,
  commands: [],
};
