/**
 * TR20 (and compatible) text protocol.
 *
 *   keep-alive  `%%<id>,<n>` answered `&&<n>\r\n`
 *   report      `%%<id>,<A|L>,<yymmddhhmmss>,<N|S><ddmm.mmmm><E|W><dddmm.mmmm>,<km/h>,<course>,<temperature|NA>,
 *               <status hex 8>,<event>[,...]`; the temperature field may carry a prefix (`B13.1:F0.0`, `C80:F0`)
 */
import { Attr, indexed } from './attributes.ts';
import { FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;

/** Messages start with `%%` and end with a line break, `|` or the next `%%`. */
function createFramer(): Framer {
  return {
    next(buffer) {
      const start = buffer.indexOf('%%');
      if (start < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('tr20: no message start');
        return null;
      }
      for (let i = start + 2; i < buffer.length; i++) {
        const b = buffer[i];
        if (i - start > MAX_FRAME) throw new FrameError('tr20: message too long');
        if (b === 0x0d || b === 0x0a) return { frame: buffer.subarray(start, i), consumed: i + 1 };
        if (b === 0x7c) return { frame: buffer.subarray(start, i + 1), consumed: i + 1 };
        if (b === 0x25 && buffer[i + 1] === 0x25) return { frame: buffer.subarray(start, i), consumed: i };
      }
      return null;
    },
  };
}

const PING = /^%%([^,]+),(\d+)$/;
const REPORT =
  /^%%([^,]+),([AL]),(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),([NS])(\d\d)(\d\d\.\d+)([EW])(\d{3})(\d\d\.\d+),(\d+),(\d+),(?:NA|[BFC]?(-?\d+)[^,]*),([0-9A-Fa-f]{8}),(\d+)/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  const ping = PING.exec(s);
  if (ping) return { deviceId: ping[1], reply: Buffer.from(`&&${ping[2]}\r\n`, 'latin1') };
  const m = REPORT.exec(s);
  if (!m) return {};
  const [, id, validity, yy, mo, dd, hh, mi, ss, ns, latD, latM, ew, lngD, lngM, speed, course, temp, status, event] = m;
  const lat = (Number(latD) + Number(latM) / 60) * (ns === 'S' ? -1 : 1);
  const lng = (Number(lngD) + Number(lngM) / 60) * (ew === 'W' ? -1 : 1);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return { deviceId: id };
  const rec: DeviceRecord = {
    time: Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss)),
    valid: validity === 'A',
    lat,
    lng,
    speed: Number(speed),
    course: Number(course) % 360,
    attributes: { [Attr.status]: parseInt(status, 16), [Attr.event]: Number(event) },
  };
  if (temp !== undefined) rec.attributes[indexed.temp(1)] = Number(temp);
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'tr20',
  defaultPort: 5018,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  carriesText: false,
};
