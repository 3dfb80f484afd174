/**
 * PUI (Pui Audio / "PUI" telematics units): devices publish JSON over MQTT, one report per PUBLISH:
 * `{id, ts: ISO-8601, rpt: "hf"|"loc", location: {lat, lon}, bear, spd: cm/s, ign: "on"|"off"}`.
 * The device is the MQTT client id (CONNECT); other report types carry no fix and decode to nothing.
 */
import { Attr } from './attributes.ts';
import { clientIdentity } from './mqtt-identity.ts';
import { DecodeError } from './types.ts';
import type { DecodeResult, DeviceRecord, Protocol } from './types.ts';

const CMS_TO_KMH = 0.036;

function num(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new DecodeError(`pui: bad ${what}`);
  return v;
}

export function decode(body: Buffer): DecodeResult {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new DecodeError('pui: body is not JSON');
  }
  if (!json || typeof json !== 'object') throw new DecodeError('pui: body is not an object');
  if (json.rpt !== 'hf' && json.rpt !== 'loc') return {};
  const loc = json.location as Record<string, unknown> | undefined;
  if (!loc || typeof loc !== 'object') throw new DecodeError('pui: no location');
  const time = typeof json.ts === 'string' ? Date.parse(json.ts) : NaN;
  if (!Number.isFinite(time)) throw new DecodeError('pui: bad ts');
  const record: DeviceRecord = {
    time,
    valid: true,
    lat: num(loc.lat, 'lat'),
    lng: num(loc.lon, 'lon'),
    course: num(json.bear, 'bear'),
    speed: num(json.spd, 'spd') * CMS_TO_KMH,
    attributes: {},
  };
  if (typeof json.ign === 'string') record.attributes[Attr.ignition] = json.ign === 'on';
  return { records: [record] };
}

export const protocol: Protocol = {
  name: 'pui',
  defaultPort: 5249,
  transports: ['mqtt'],
  maxFrameSize: 16 * 1024,
  decodeMqttConnect: (clientId) => clientIdentity('pui', clientId),
  decode: (body) => decode(body),
};
