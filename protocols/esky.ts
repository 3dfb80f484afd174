/**
 * Esky (ET/EO/EL) text protocol over TCP and UDP. Fields are separated by `+` or `;`:
 *   <EO|ET>;<index>;<imei>;R;<sats>;<yyMMddHHmmss>;<lat>;<lon>;<speed m/s>;<course>;
 *   [0x<inputs, active low: bit 0 ignition, 1 input 1, 2 input 2>;<event>;<odometer>;]<adc 1>;<battery 0.01 V>[;...]
 * Newer firmware appends more values (a VIN among them). `EL;<index>;<imei>;<time>;` is a login.
 * Messages carry no terminator: a frame runs from its header to the next header. A message with no
 * header after it yet is a frame when it is visibly whole (a report ending with `|` or with a 4-digit
 * battery value, a login with its time); otherwise it waits for the next message.
 * Over UDP each report is acknowledged with `ACK,<last +-separated value>#`.
 */
import { Attr, indexed } from './attributes.ts';
import { latin1, utc } from './text.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const HEADER = /^E[A-Z];\d+;(\d+);/;
const REPORT =
  /^E[A-Z];\d+;\d+;R;(\d+)[+;](\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)[+;](-?\d+\.\d+)[+;](-?\d+\.\d+)[+;](\d+\.\d+)[+;](\d+)[+;](?:0x([0-9a-fA-F]+)[+;](\d+)[+;](\d+)[+;])?(\d+)[+;](\d+)(.*)$/;
const VIN = /[+;]([A-HJ-NPR-Z0-9]{17})(?=[+;]|$)/;

/** The next header (`E`, a capital letter, `;`) after `from`, or -1. */
function nextHeader(buffer: Buffer, from: number): number {
  for (let i = buffer.indexOf(0x45, from); i >= 0 && i + 2 < buffer.length; i = buffer.indexOf(0x45, i + 1)) {
    if (buffer[i + 1] >= 0x41 && buffer[i + 1] <= 0x5a && buffer[i + 2] === 0x3b) return i;
  }
  return -1;
}

const LOGIN = /^EL;\d+;\d+;\d{12};$/;
/** A message that is complete although no header follows it yet. */
const whole = (s: string) => LOGIN.test(s) || (REPORT.test(s) && /(?:\||[+;]\d{4})$/.test(s));

function createFramer(): Framer {
  return {
    next(buffer) {
      const start = buffer.indexOf(0x45);
      if (start < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('esky: no message start');
        return null;
      }
      const end = nextHeader(buffer, start + 1);
      const to = end < 0 ? buffer.length : end;
      if (to - start > MAX_FRAME) throw new FrameError('esky: message too long');
      if (end < 0 && !whole(buffer.toString('latin1', start))) return null;
      return { frame: buffer.subarray(start, to), consumed: to };
    },
  };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  const head = HEADER.exec(s);
  if (!head) return {};
  const deviceId = head[1];
  const m = REPORT.exec(s);
  if (!m) return { deviceId };
  const [lat, lng] = [Number(m[8]), Number(m[9])];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('esky: coordinates out of range');
  const a: Record<string, string | number | boolean> = { [indexed.adc(1)]: Number(m[15]), [Attr.battery]: Number(m[16]) / 100 };
  if (m[12] !== undefined) {
    const input = parseInt(m[12], 16);
    Object.assign(a, { [Attr.ignition]: (input & 1) === 0, [indexed.in(1)]: (input & 2) === 0, [indexed.in(2)]: (input & 4) === 0, [Attr.event]: Number(m[13]), [Attr.odometer]: Number(m[14]) });
  }
  const vin = VIN.exec(m[17]);
  if (vin) a[Attr.vin] = vin[1];
  const last = s.lastIndexOf('+');
  return {
    deviceId,
    records: [
      {
        time: utc(Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7])),
        valid: true,
        satellites: Number(m[1]),
        lat,
        lng,
        speed: Number(m[10]) * 3.6,
        course: Number(m[11]) % 360,
        attributes: a,
      },
    ],
    ...(ctx.transport === 'udp' && last > 0 ? { reply: latin1(`ACK,${s.slice(last + 1)}#`) } : {}),
  };
}

export const protocol: Protocol = {
  name: 'esky',
  defaultPort: 5147,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
