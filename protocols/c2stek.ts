/**
 * C2STEK text reports `PA$<imei>$<type>#<yyMMdd>#<HHmmss>#<valid>#<lat>#<lon>#<km/h>#<course>#<altitude>#
 * <battery mV>#<geo alarm>#<alarm hex>[#[<armed>]<door><ignition>#...]$AP` (older firmware ends after the alarm). A `PA$<imei>$20$AP` heartbeat is
 * echoed back as it came. Alarms: 2 vibration, 3 power cut, 4 overspeed, 5 SOS, 6 door, A low battery, B fault.
 */
import { Alarm, Attr } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = /^PA\$(\d+)\$.#(\d\d)(\d\d)(\d\d)#(\d\d)(\d\d)(\d\d)#([01])#([+-]?\d+\.\d+)#([+-]?\d+\.\d+)#(\d+\.\d+)#(\d+\.\d+)#(-?\d+\.\d+)#(\d+)#\d+#([0-9A-Fa-f]+)(?:#([01])?([01])([01])(?:#|\$))?/;
const HEARTBEAT = /^PA\$(\d+)\$20\$AP/;
const ALARMS: Record<number, string> = { 0x2: Alarm.vibration, 0x3: Alarm.powerCut, 0x4: Alarm.overspeed, 0x5: Alarm.sos, 0x6: Alarm.door, 0xa: Alarm.lowBattery, 0xb: Alarm.fault };

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  const hb = HEARTBEAT.exec(s);
  if (hb) return { deviceId: hb[1], reply: Buffer.from(s.slice(0, hb[0].length), 'latin1') };
  const m = REPORT.exec(s);
  if (!m) return {};
  const [lat, lng] = [Number(m[9]), Number(m[10])];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId: m[1] };
  const a: DeviceRecord['attributes'] = { [Attr.battery]: Number(m[14]) / 1000 };
  if (m[17] !== undefined) Object.assign(a, { [Attr.door]: m[17] === '1', [Attr.ignition]: m[18] === '1' });
  const alarm = ALARMS[parseInt(m[15], 16)];
  if (alarm) a[Attr.alarm] = alarm;
  if (m[16] !== undefined) a[Attr.armed] = m[16] === '1';
  return {
    deviceId: m[1],
    records: [
      {
        time: utc(Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7])),
        valid: m[8] === '1',
        lat,
        lng,
        speed: Number(m[11]),
        course: Number(m[12]) % 360,
        altitude: Number(m[13]),
        attributes: a,
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'c2stek',
  defaultPort: 5181,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('c2stek', [0x0d, 0x0a], MAX_FRAME),
  decode,
  commands: [],
};
