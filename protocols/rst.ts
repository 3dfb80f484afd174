/**
 * RST (RST-MINI and other RST Rastreamento trackers) UDP text protocol, `;`-separated, ending `FIM;`:
 *   RST;<A|L archive>;<model>;<firmware>;<serial (9 digits)>;<index>;<type>;<event time>;<fix time>;<lat>;<lon>;
 *   <km/h>;<course>;<altitude>;<valid>;<sats>;<hdop>;<in 1-8>;<in 9-16>;<in 17-24>;<out 1-8>;<out 9-16>;
 *   <power V>;<battery V>;<odometer>;<rssi>;<temp (signed hex)>;<sensors>;<status 1>;<status 2>;<extra...>;FIM;
 * Times are `dd-MM-yyyy HH:mm:ss`. Type 55 carries the driver id first in the extra values; type 134
 * (an answer) carries no fix. Every message is acknowledged with `RST;A;<model>;<fw>;<serial>;<index>;6;FIM;`.
 */
import { Attr, indexed } from './attributes.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { latin1, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const HEAD = /^RST;([AL]);([^;,]+);([^;]{1,16});(\d{9});(\d+);(\d+);/;
const DT = '(\\d\\d)-(\\d\\d)-(\\d{4}) (\\d\\d):(\\d\\d):(\\d\\d);';
const H = '([0-9A-Fa-f]{2});';
const BODY = new RegExp(
  `^${DT}${DT}(-?\\d+\\.\\d+);(-?\\d+\\.\\d+);(\\d+);(\\d+);(-?\\d+);([01]);(\\d+);(\\d+);${H}${H}${H}${H}${H}(\\d+\\.\\d+);(\\d+\\.\\d+);(\\d+);(\\d+);${H}[0-9A-Fa-f]{4};${H}${H}(.*)$`,
);
const TYPE_DRIVER = 55;
const TYPE_ANSWER = 134;

const hex = (s: string) => parseInt(s, 16);
const time = (m: string[], i: number) => utc(Number(m[i + 2]), Number(m[i + 1]), Number(m[i]), Number(m[i + 3]), Number(m[i + 4]), Number(m[i + 5]));

function record(m: RegExpExecArray, type: number): DeviceRecord {
  const [lat, lng] = [Number(m[13]), Number(m[14])];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('rst: coordinates out of range');
  const inputs2 = hex(m[22]);
  const a: DeviceRecord['attributes'] = {
    [Attr.input]: hex(m[21]) | (inputs2 << 8) | (hex(m[23]) << 16),
    [Attr.ignition]: (inputs2 & 0x80) !== 0,
    [Attr.output]: hex(m[24]) | (hex(m[25]) << 8),
    [Attr.power]: Number(m[26]),
    [Attr.battery]: Number(m[27]),
    [Attr.odometer]: Number(m[28]),
    [Attr.rssi]: Number(m[29]),
    [indexed.temp(1)]: (hex(m[30]) << 24) >> 24,
    [Attr.status]: (hex(m[31]) << 8) | hex(m[32]),
    deviceTime: time(m, 1),
  };
  const extra = m[33].split(';');
  if (type === TYPE_DRIVER && extra[0] && extra[0] !== 'FIM') a[Attr.driverUniqueId] = extra[0];
  return {
    time: time(m, 7),
    lat,
    lng,
    speed: Number(m[15]),
    course: Number(m[16]) % 360,
    altitude: Number(m[17]),
    valid: m[18] === '1',
    satellites: Number(m[19]),
    hdop: Number(m[20]),
    attributes: a,
  };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1');
  const head = HEAD.exec(s);
  if (!head || !s.trimEnd().endsWith('FIM;')) return {};
  const [, archive, model, firmware, serial, index, typeS] = head;
  const type = Number(typeS);
  const reply = latin1(`RST;A;${model};${firmware};${serial};${index};6;FIM;`);
  const session = ctx.session as { last?: LastFix };
  const m = BODY.exec(s.slice(head[0].length));
  if (m) {
    const rec = record(m, type);
    if (archive === 'L') rec.attributes[Attr.archive] = true;
    rememberFix(session, rec);
    return { deviceId: serial, records: [rec], reply };
  }
  if (type === TYPE_ANSWER) return { deviceId: serial, records: [withLastFix({ attributes: { [Attr.result]: String(type) } }, session)], reply };
  return { deviceId: serial, reply };
}

export const protocol: Protocol = {
  name: 'rst',
  defaultPort: 5196,
  transports: ['udp'],
  maxFrameSize: 2048,
  decode,
  commands: [],
};
