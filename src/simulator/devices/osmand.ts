/**
 * OsmAnd / Traccar Client device side over a kept-alive HTTP/1.1 connection: one record as a GET
 * query (`?id=..&timestamp=..&lat=..&lon=..&speed=<knots>...`, as the phone apps send it), a batch
 * as a JSON POST (`{device_id, location: [...]}`, as background-geolocation libraries upload their
 * buffer). The server answers 200 once the records are stored.
 */
import type { Device, DeviceProtocol, ReplyReader, SimFix } from '../types.ts';

const KMH_PER_KNOT = 1.852;

/** Query parameters of one record; sensors go as extra parameters the decoder keeps by name. */
export function query(deviceId: string, f: SimFix): string {
  const p = new URLSearchParams({
    id: deviceId,
    timestamp: String(f.time), // milliseconds: keeps sub-second records apart
    lat: String(f.lat),
    lon: String(f.lng),
    speed: String(f.speed / KMH_PER_KNOT),
    bearing: String(f.course),
    altitude: String(f.altitude),
    accuracy: String(Math.round(f.hdop * 5)),
    hdop: String(f.hdop),
    batt: String(f.batteryLevel),
    ignition: String(f.ignition),
    motion: String(f.motion),
    power: String(f.power),
    battery: String(f.battery),
    fuelLevel: String(f.fuelLevel),
    odometer: String(f.odometer),
    input: String(f.inputs),
  });
  return p.toString();
}

/** One location of a JSON upload (speed in m/s, battery level 0..1). */
export function location(f: SimFix): Record<string, unknown> {
  return {
    timestamp: new Date(f.time).toISOString(),
    coords: { latitude: f.lat, longitude: f.lng, speed: f.speed / 3.6, heading: f.course, altitude: f.altitude, accuracy: Math.round(f.hdop * 5) },
    is_moving: f.motion,
    odometer: f.odometer,
    battery: { level: f.batteryLevel / 100, is_charging: f.ignition },
    extras: { ignition: f.ignition, power: f.power, battery: f.battery, fuelLevel: f.fuelLevel, input: f.inputs, hdop: f.hdop },
  };
}

export function request(deviceId: string, fixes: SimFix[], host: string): Buffer {
  if (fixes.length === 1) return Buffer.from(`GET /?${query(deviceId, fixes[0])} HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`);
  const body = Buffer.from(JSON.stringify({ device_id: deviceId, location: fixes.map(location) }));
  const head = `POST / HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

/**
 * HTTP/1.1 responses, just enough of them: status line, headers, then a body by Content-Length or
 * chunked encoding. Each response acknowledges one request; any status but 200 refuses it.
 */
export function httpReplies(): ReplyReader {
  return {
    next(buf) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buf.length > 16384) throw new Error('http: response head too long');
        return null;
      }
      const head = buf.subarray(0, end).toString('latin1').split('\r\n');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head[0])?.[1];
      if (!status) throw new Error('http: bad status line');
      const header = (name: string) => head.find((h) => h.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim();
      let consumed = end + 4;
      if (/chunked/i.test(header('transfer-encoding') ?? '')) {
        for (;;) {
          const lineEnd = buf.indexOf('\r\n', consumed);
          if (lineEnd < 0) return null;
          const size = parseInt(buf.subarray(consumed, lineEnd).toString('latin1'), 16);
          if (!Number.isFinite(size)) throw new Error('http: bad chunk size');
          consumed = lineEnd + 2 + size + 2;
          if (buf.length < consumed) return null;
          if (size === 0) break;
        }
      } else {
        consumed += Number(header('content-length') ?? 0);
        if (buf.length < consumed) return null;
      }
      return { reply: { kind: 'ack', count: status === '200' ? null : 0 }, consumed };
    },
  };
}

export const osmand: DeviceProtocol = {
  name: 'osmand',
  defaultPort: 5055,
  maxRecords: 1000,
  idPattern: /^[\x21-\x7e]{1,64}$/,
  createDevice(deviceId, target): Device {
    const host = `${target.host}:${target.port}`;
    return {
      login: () => null,
      packet: (fixes) => ({ bytes: request(deviceId, fixes, host), units: [fixes.length] }),
      replies: httpReplies,
    };
  },
};
