/**
 * iVT401 (and the iTriangle family) text reports: `(<type>,<IMEI>,<ddmmyy>,<hhmmss>,<lat>,<lng>,
 * <km/h>,<course>,<altitude m>,<satellites>,<GPS status>,<GSM signal>,<inputs>,<outputs>,<analog>,
 * <supply V>,<battery V>,<device °C>,<accelerometer>,<ignition>,<HDOP>,...)`.
 * Types: TLN normal, TLA alarm/event, TLB buffered, TLL... A report without a date carries nothing.
 * The devices expect no acknowledgement.
 */
import { bracketedFramer } from './text.ts';
import { Attr } from './attributes.ts';
import {
  DecodeError,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type Framer,
  type Protocol,
} from './types.ts';

const MAX_FRAME = 1024;

const createFramer = (): Framer => bracketedFramer('ivt401', 0x28, 0x29, MAX_FRAME);

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const f = frame.toString('latin1').trim().replace(/^\(/, '').replace(/\)$/, '').split(',');
  if (f.length < 21 || !/^TL[A-Z]$/.test(f[0]) || !/^\d{6,20}$/.test(f[1])) throw new DecodeError('ivt401: bad report');
  const id = f[1];
  const d = /^(\d\d)(\d\d)(\d\d)$/.exec(f[2]);
  const t = /^(\d\d)(\d\d)(\d\d)$/.exec(f[3]);
  if (!d || !t) return { deviceId: id };
  const n = (i: number) => Number(f[i]);
  const [lat, lng, speed, course] = [n(4), n(5), n(6), n(7)];
  if (![lat, lng, speed, course].every(Number.isFinite) || Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('ivt401: bad position');
  const rec: DeviceRecord = {
    time: Date.UTC(2000 + Number(d[3]), Number(d[2]) - 1, Number(d[1]), Number(t[1]), Number(t[2]), Number(t[3])),
    valid: f[10] !== '0' && (lat !== 0 || lng !== 0),
    lat,
    lng,
    speed,
    course: course % 360,
    attributes: { type: f[0] },
  };
  if (Number.isFinite(n(8))) rec.altitude = n(8);
  if (Number.isInteger(n(9))) rec.satellites = n(9);
  const a = rec.attributes;
  if (Number.isFinite(n(11))) a[Attr.rssi] = n(11);
  if (/^[01]+$/.test(f[12])) a[Attr.input] = parseInt([...f[12]].reverse().join(''), 2);
  if (/^[01]+$/.test(f[13])) a[Attr.output] = parseInt([...f[13]].reverse().join(''), 2);
  if (Number.isFinite(n(14))) a.adc1 = n(14);
  if (Number.isFinite(n(15))) a[Attr.power] = n(15);
  if (Number.isFinite(n(16))) a[Attr.battery] = n(16);
  if (Number.isFinite(n(17))) a[Attr.deviceTemp] = n(17);
  if (f[19] === '0' || f[19] === '1') a[Attr.ignition] = f[19] === '1';
  if (Number.isFinite(n(20))) rec.hdop = n(20);
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'ivt401',
  defaultPort: 5153,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
  carriesText: false,
};
