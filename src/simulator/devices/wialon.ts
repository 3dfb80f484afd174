/**
 * Wialon IPS 2.0 device side: `#L#2.0;imei;password;CRC`, then `#D#` (one record) or `#B#` (a
 * black-box batch, `msg|msg|...|CRC`). CRC-16/ARC in hex over the body up to the separator before
 * it. Answers: `#AL#1`, `#AD#1` (other codes are errors), `#AB#<records taken>`.
 * Params use the lower-case names the decoder aliases (`pwr_ext`, `pwr_int`) or keeps as they are.
 */
import { crc16Ibm as crc16Arc } from '../../../protocols/binary.ts';
import type { Device, DeviceProtocol, Reply, ReplyReader, SimFix } from '../types.ts';

const crc = (s: string) => crc16Arc(Buffer.from(s, 'utf8')).toString(16).toUpperCase().padStart(4, '0');
const two = (n: number) => String(n).padStart(2, '0');

/** Decimal degrees -> NMEA `ddmm.mmmmmm` and hemisphere. */
function nmea(value: number, degDigits: number, pos: string, neg: string): [string, string] {
  const abs = Math.abs(value);
  const deg = Math.floor(abs);
  const min = (abs - deg) * 60;
  return [`${String(deg).padStart(degDigits, '0')}${min.toFixed(6).padStart(9, '0')}`, value < 0 ? neg : pos];
}

/** The 16 fields of a `#D#` body (without the CRC). */
export function dataBody(f: SimFix): string {
  const d = new Date(f.time);
  const date = `${two(d.getUTCDate())}${two(d.getUTCMonth() + 1)}${two(d.getUTCFullYear() % 100)}`;
  const time = `${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}`;
  const params = [
    `pwr_ext:2:${f.power.toFixed(3)}`,
    `pwr_int:2:${f.battery.toFixed(3)}`,
    `fuel_level:1:${f.fuelLevel}`,
    `odometer:1:${f.odometer}`,
    `ignition:1:${f.ignition ? 1 : 0}`,
    `motion:1:${f.motion ? 1 : 0}`,
    `gsm:1:${f.rssi}`,
  ].join(',');
  return [date, time, ...nmea(f.lat, 2, 'N', 'S'), ...nmea(f.lng, 3, 'E', 'W'), f.speed, f.course, f.altitude, f.satellites, f.hdop.toFixed(1), f.inputs, 0, '', 'NA', params].join(';');
}

export function loginLine(imei: string, password = 'NA'): string {
  const body = `2.0;${imei};${password};`;
  return `#L#${body}${crc(body)}\r\n`;
}

export function dataLine(f: SimFix): string {
  const body = `${dataBody(f)};`;
  return `#D#${body}${crc(body)}\r\n`;
}

export function blackBoxLine(fixes: SimFix[]): string {
  const body = fixes.map(dataBody).join('|');
  return `#B#${body}|${crc(body)}\r\n`;
}

/** Lines from the server: `#AL#`, `#AD#`, `#AB#`; `#M#` is a message to the driver, confirmed `#AM#1`. */
function replies(): ReplyReader {
  return {
    next(buf) {
      const lf = buf.indexOf(0x0a);
      if (lf < 0) {
        if (buf.length > 65536) throw new Error('wialon: reply line too long');
        return null;
      }
      const line = buf.subarray(0, lf).toString('utf8').replace(/\r$/, '');
      const m = /^#(AL|AD|AB|M|AP|AM|AI)#(.*)$/.exec(line);
      if (!m) throw new Error(`wialon: unexpected reply ${line.slice(0, 40)}`);
      const [, type, value] = m;
      let reply: Reply;
      if (type === 'AL') reply = { kind: 'login', ok: value === '1' };
      else if (type === 'AD') reply = { kind: 'ack', count: value === '1' ? null : 0 };
      else if (type === 'AB') reply = { kind: 'ack', count: /^\d+$/.test(value) ? Number(value) : 0 };
      else if (type === 'M') reply = { kind: 'command', answer: Buffer.from('#AM#1\r\n') };
      else reply = { kind: 'command' };
      return { reply, consumed: lf + 1 };
    },
  };
}

export const wialon: DeviceProtocol = {
  name: 'wialon',
  defaultPort: 5039,
  maxRecords: 500, // keeps a #B# line well inside the 64 KiB the server accepts
  idPattern: /^[^#;\s]{1,64}$/,
  createDevice(deviceId): Device {
    return {
      login: () => Buffer.from(loginLine(deviceId)),
      // a single live record goes as #D#; batches and resent data as #B# (archive), as devices do
      packet: (fixes, resend) => ({ bytes: Buffer.from(fixes.length === 1 && !resend ? dataLine(fixes[0]) : blackBoxLine(fixes)), units: [fixes.length] }),
      replies,
    };
  },
};
