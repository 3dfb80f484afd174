/**
 * GOTOP protocol (GOTOP TL-series trackers): text reports ending with `#`.
 *
 *   `<imei>,<type>,A|V,[DATE:]yymmdd,[TIME:]hhmmss,[LAT:]<deg><N|S>,[LON:|LOT:]<deg><E|W>,Speed:<km/h>,
 *    [<battery %>-<rssi>,[<altitude>,<hdop>]],...`
 * Types: CMD-T / CMD-F (position), CMD-KEY (SOS), ALM-B<n>... (geofence: odd n enter, even n exit),
 * ALM-D..., CMD-X (link check). The trackers expect no answer (none is sent).
 */
import { Alarm, Attr } from './attributes.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 2048;

/** Reports end with `#` (dropped); line breaks between them are skipped. */
function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && (buffer[start] === 0x0d || buffer[start] === 0x0a)) start++;
      const end = buffer.indexOf(0x23, start);
      if (end < 0) {
        if (buffer.length - start > MAX_FRAME) throw new FrameError('gotop: report too long');
        return null;
      }
      return { frame: buffer.subarray(start, end), consumed: end + 1 };
    },
  };
}

const REPORT =
  /^(\d+),([^,]+),([AV]),(?:DATE:)?(\d\d)(\d\d)(\d\d),(?:TIME:)?(\d\d)(\d\d)(\d\d),(?:LAT:)?(\d+\.\d+)([NS]),(?:LO[NT]:)?(\d+\.\d+)([EW]),Speed:(\d+\.\d+),(?:(\d+)-(\d+),(?:(\d+\.\d),(\d+\.\d\d))?)?/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  const m = REPORT.exec(s);
  if (!m) {
    const id = /^(\d{6,}),/.exec(s)?.[1];
    return id ? { deviceId: id } : {};
  }
  const [, imei, type, validity, yy, mo, dd, hh, mi, ss, lat, latH, lng, lngH, speed, battery, rssi, altitude, hdop] = m;
  const rec: DeviceRecord = {
    time: Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss)),
    valid: validity === 'A',
    lat: latH === 'S' ? -Number(lat) : Number(lat),
    lng: lngH === 'W' ? -Number(lng) : Number(lng),
    speed: Number(speed),
    attributes: {},
  };
  if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('gotop: coordinates out of range');
  const a = rec.attributes;
  if (type === 'CMD-KEY') a[Attr.alarm] = Alarm.sos;
  else if (type.startsWith('ALM-B') && /\d/.test(type[5] ?? '')) a[Attr.alarm] = Number(type[5]) % 2 ? Alarm.geofenceEnter : Alarm.geofenceExit;
  if (battery !== undefined) {
    a[Attr.batteryLevel] = Number(battery);
    a[Attr.rssi] = Number(rssi);
  }
  if (altitude !== undefined) {
    rec.altitude = Number(altitude);
    rec.hdop = Number(hdop);
  }
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'gotop',
  defaultPort: 5050,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  carriesText: false,
};
