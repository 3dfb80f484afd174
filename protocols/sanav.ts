/**
 * Sanav (GS-818, GC-101 and other Sanav trackers) text reports, one per line:
 *   imei=<imei>&rmc=$GPRMC,...*cs,<status word>[,<io hex>,...]   (also `imei:<imei>rmc:$GPRMC,...`)
 * The RMC sentence is the fix (knots). After it: a status word (`AUTO`, `STOP`, `SOS`, ...), on some
 * firmware the IO word (hex: bits 0..4 inputs, 5 ignition, 6/7 outputs, 8 external power, 9 clear =
 * low battery), and the battery as `-4095mv`, `3950mV` or `V3.872;67%`. The devices expect no answer.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, nmeaCoordinate, num, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 2048;
const REPORT =
  /^imei[:=](\d+)&?rmc[:=]\$GPRMC,(\d\d)(\d\d)(\d\d)\.\d+,([AV]),(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),(\d+\.\d+),(\d+\.\d+)?,(\d\d)(\d\d)(\d\d),[^*]*\*[0-9A-Fa-f]{2}(.*)$/;
const STATUS = /^,([A-Z]+(?:-[A-Z]+)*)(?:-\d+m[vV])?(?:,([0-9A-Fa-f]{4}),)?/;

function tail(s: string, a: DeviceRecord['attributes']): void {
  const status = STATUS.exec(s);
  if (status) {
    a[Attr.status] = status[1];
    if (status[1] === 'SOS') a[Attr.alarm] = Alarm.sos;
    if (status[2]) {
      const io = parseInt(status[2], 16);
      for (let i = 0; i < 5; i++) a[indexed.in(i + 1)] = (io & (1 << i)) !== 0;
      a[Attr.ignition] = (io & 0x20) !== 0;
      a[indexed.out(1)] = (io & 0x40) !== 0;
      a[indexed.out(2)] = (io & 0x80) !== 0;
      a[Attr.charge] = (io & 0x100) !== 0;
      if (!(io & 0x200)) a[Attr.alarm] = Alarm.lowBattery;
    }
  }
  const mv = /(\d{3,5})m[vV]\b/.exec(s);
  if (mv) a[Attr.battery] = Number(mv[1]) / 1000;
  const level = /,V(\d+\.\d+);(\d{1,3})%/.exec(s);
  if (level) {
    a[Attr.battery] = Number(level[1]);
    a[Attr.batteryLevel] = Number(level[2]);
  }
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const rec: DeviceRecord = {
    time: utc(Number(m[14]), Number(m[13]), Number(m[12]), Number(m[2]), Number(m[3]), Number(m[4])),
    valid: m[5] === 'A',
    lat: nmeaCoordinate(m[6], m[7]),
    lng: nmeaCoordinate(m[8], m[9]),
    speed: knotsToKmh(Number(m[10])),
    course: (num(m[11]) ?? 0) % 360,
    attributes: {},
  };
  if (Math.abs(rec.lat!) > 90) return { deviceId: m[1] };
  tail(m[15], rec.attributes);
  return { deviceId: m[1], records: [rec] };
}

export const protocol: Protocol = {
  name: 'sanav',
  defaultPort: 5051,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('sanav', [0x0d, 0x0a], MAX_FRAME),
  decode,
  commands: [],
};
