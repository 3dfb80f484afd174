/**
 * Milesmate (Indian AIS-140 style units) reports `ApiString={A:<imei>,B:<battery V>,C:<adc>,D:<HHmmss>,
 * E:<ddmm.mmmm><N|S>,F:<dddmm.mmmm><E|W>,G:<km/h>,H:<ddMMyy>,I:<G|L>,J:<8 flags>,K:<7 flags><A|V>,L:<pin>,
 * M:<course>}`. J flags: 1st ignition, 2nd SOS, 6th external power, 8th overspeed; K flags: 1st
 * immobilizer, 2nd tow. Every report is answered `+##Received OK\n`.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { degMin, delimitedFramer, latin1, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPLY = latin1('+##Received OK\n');
const REPORT =
  /ApiString=\{A:(\d+),B:(\d+\.\d+),C:(\d+\.\d+),D:(\d\d)(\d\d)(\d\d),E:(\d\d)(\d\d\.\d+)([NS]),F:(\d{3})(\d\d\.\d+)([EW]),G:(\d+\.\d+),H:(\d\d)(\d\d)(\d\d),I:[GL],J:(\d{8}),K:(\d{7})([AV]),L:\d{4},M:(\d+\.\d+)\}/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1'));
  if (!m) return {};
  const lat = degMin(m[7], m[8], '', m[9]);
  const lng = degMin(m[10], m[11], '', m[12]);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId: m[1], reply: REPLY };
  const [j, k] = [m[17], m[18]];
  const a: DeviceRecord['attributes'] = {
    [Attr.battery]: Number(m[2]),
    [indexed.adc(1)]: Number(m[3]),
    [Attr.ignition]: j[0] === '1',
    [Attr.charge]: j[5] === '1',
    [Attr.blocked]: k[0] === '1',
  };
  const alarm = j[1] === '1' ? Alarm.sos : j[7] === '1' ? Alarm.overspeed : k[1] === '1' ? Alarm.tow : undefined;
  if (alarm) a[Attr.alarm] = alarm;
  return {
    deviceId: m[1],
    records: [
      {
        time: utc(Number(m[16]), Number(m[15]), Number(m[14]), Number(m[4]), Number(m[5]), Number(m[6])),
        valid: m[19] === 'A',
        lat,
        lng,
        speed: Number(m[13]),
        course: Number(m[20]) % 360,
        attributes: a,
      },
    ],
    reply: REPLY,
  };
}

export const protocol: Protocol = {
  name: 'milesmate',
  defaultPort: 5176,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('milesmate', [0x7d], MAX_FRAME, true),
  decode,
  commands: [],
};
