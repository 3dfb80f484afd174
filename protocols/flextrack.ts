/**
 * Flextrack (Flexiweb units) text protocol, one message per line, each acknowledged `<index>,ACK\r`:
 *   <index>,LOGON,<node id>,<iccid>
 *   <index>,UNITSTAT,<yyyyMMdd>,<HHmmss>,<node id>,<N|S><deg>.<min>,<E|W><deg>.<min>,<km/h>,<course>,
 *   <sats>,<battery mV>,<gsm dBm>,<state hex>,<mcc><mnc>,<altitude>,<hdop ×10>,<cell hex>,<fix age>,
 *   <lac hex>,<odometer>
 * The node id names the device in both.
 */
import { Attr } from './attributes.ts';
import { degMin, delimitedFramer, latin1, utc } from './text.ts';
import { type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const LOGON = /^(-?\d+),LOGON,(\d+),(\d+)/;
const UNITSTAT =
  /^(-?\d+),UNITSTAT,(\d{4})(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(\d+),([NS])(\d+)\.(\d+\.\d+),([EW])(\d+)\.(\d+\.\d+),(\d+),(\d+),(\d+),(\d+),(-?\d+),([0-9A-Fa-f]+),(\d{3})(\d\d),(-?\d+),(\d+),([0-9A-Fa-f]+),\d+,([0-9A-Fa-f]+),(\d+)/;

const ack = (index: string) => latin1(`${index},ACK\r`);

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  const logon = LOGON.exec(s);
  if (logon) return { deviceId: logon[2], reply: ack(logon[1]) };
  const m = UNITSTAT.exec(s);
  if (!m) return {};
  const lat = degMin(m[10], m[11], '', m[9]);
  const lng = degMin(m[13], m[14], '', m[12]);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId: m[8], reply: ack(m[1]) };
  const rssi = Number(m[19]);
  return {
    deviceId: m[8],
    records: [
      {
        time: utc(Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7])),
        valid: true,
        lat,
        lng,
        speed: Number(m[15]),
        course: Number(m[16]) % 360,
        satellites: Number(m[17]),
        altitude: Number(m[23]),
        hdop: Number(m[24]) / 10,
        cells: [{ mcc: Number(m[21]), mnc: Number(m[22]), lac: parseInt(m[26], 16), cid: parseInt(m[25], 16), rssi }],
        attributes: { [Attr.battery]: Number(m[18]) / 1000, [Attr.rssi]: rssi, [Attr.status]: parseInt(m[20], 16), [Attr.odometer]: Number(m[27]) },
      },
    ],
    reply: ack(m[1]),
  };
}

export const protocol: Protocol = {
  name: 'flextrack',
  defaultPort: 5090,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('flextrack', [0x0d, 0x0a], MAX_FRAME),
  decode,
  commands: [],
};
