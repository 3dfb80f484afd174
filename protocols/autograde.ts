/**
 * Autograde text reports in parentheses:
 *
 *   `(<8-digit prefix><4-digit serial><15-digit imei><ddmmyy><A|V><ddmm.mmmm><N|S><dddmm.mmmm><E|W><speed, 5 chars>
 *     <hhmmss><course, 6 chars><status byte>A<4 digits>B...E<4 digits>K<4 digits>...O<4 digits>)`
 *
 * The ten lettered 4-digit fields are the analog channels as sent. The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { bracketedFramer, nmeaFix } from './text.ts';
import type { DecodeContext, DecodeResult, Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT =
  /^\(\d{8}(\d{4})(\d{15})(\d\d)(\d\d)(\d\d)([AV])(\d{4}\.\d{4})([NS])(\d{5}\.\d{4})([EW])([\d.]{5})(\d\d)(\d\d)(\d\d)([\d.]{6})([^A]{1,2})A(\d{4})B(\d{4})C(\d{4})D(\d{4})E(\d{4})K(\d{4})L(\d{4})M(\d{4})N(\d{4})O(\d{4})/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const [, serial, imei, dd, mo, yy, valid, lat, ns, lon, ew, speed, hh, mi, ss, course, status, ...channels] = m;
  const rec = nmeaFix({ dd, mo, yy, hh, mi, ss, valid, lat, ns, lng: lon, ew, course });
  rec.speed = Number(speed);
  rec.attributes[Attr.index] = Number(serial);
  // One status byte; a UTF-8 sender makes two characters of bytes over 0x7f, the last one is the byte.
  rec.attributes[Attr.status] = status.charCodeAt(status.length - 1);
  channels.forEach((v, i) => (rec.attributes[indexed.adc(i + 1)] = Number(v)));
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'autograde',
  defaultPort: 5120,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => bracketedFramer('autograde', 0x28, 0x29, MAX_FRAME),
  decode,
  commands: [],
};
