/**
 * Telemetry checkpoints, compactly (issue 15). A checkpoint is written at the start of every trip
 * and parking and holds the whole processor state as JSON (filters, both streams' segments,
 * counters, events, zone visits): about 1 KB of text, mostly the same member names each time.
 * Stored as a BLOB: a format byte (1) and the JSON deflated (raw) with a preset dictionary of a
 * typical state, about 160 bytes. Rows written before are JSON text and are read as they are;
 * the state given back is the identical JSON text either way.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';

const DEFLATED = 1;

/**
 * The preset dictionary: typical states (a parking, then a trip, the most common last). Part of the
 * stored format: never change it; a new dictionary needs a new format byte.
 */
const DICTIONARY = Buffer.from(
  '{"kind":"zone","id":1,"enter":null,"run":null}' +
    '{"pipeline":{"v":1,"filter":{"gnss":{"last":{"time":1795313240000,"lat":54.7677581,"lng":25.1847791,"precision":0},"pending":[]},"lbs":{"last":null,"pending":[]}},"gnss":{"mode":"parking","last":{"time":1795313240000,"lat":54.7677581,"lng":25.1847791,"speed":0,"moving":false,"ignitionOff":false,"event":false,"precision":null},"seg":{"start":1795306360000,"end":1795313240000,"startLat":54.7677581,"startLng":25.1847791,"endLat":54.7677581,"endLng":25.1847791,"points":689,"lengthKm":0,"maxSpeedKmh":0,"movingMs":0,"events":0,"precision":null,"minLat":54.7677581,"maxLat":54.7677581,"minLng":25.1847791,"maxLng":25.1847791},"run":null,"tripAtStop":null,"tripKm":10.401954936520434},"lbs":{"mode":"none","last":null,"seg":null,"run":null,"tripAtStop":null,"tripKm":0},"counters":{"odometerKm":10.455,"hoursMs":840000,"fuelL":0,"devOdometer":164045839,"devHours":null,"devFuel":null,"tripKm":10.401954936520434,"ignition":true,"lastTime":1795313240000},"events":{"ignition":true,"speeding":null,"parking":1795306360000}},"visits":{"fences":[]}}' +
    '{"pipeline":{"v":1,"filter":{"gnss":{"last":{"time":1795305930000,"lat":54.7601207,"lng":25.1098105,"precision":0},"pending":[]},"lbs":{"last":null,"pending":[]}},"gnss":{"mode":"trip","last":{"time":1795305930000,"lat":54.7601207,"lng":25.1098105,"speed":14,"moving":true,"ignitionOff":false,"event":false,"precision":null},"seg":{"start":1795305600000,"end":1795305930000,"startLat":54.7728332,"startLng":25.1335605,"endLat":54.7601207,"endLng":25.1098105,"points":34,"lengthKm":4.728075237653164,"maxSpeedKmh":78,"movingMs":330000,"events":0,"precision":null,"minLat":54.7601207,"maxLat":54.7728641,"minLng":25.0954729,"maxLng":25.1335605},"run":null,"tripAtStop":null,"tripKm":0},"lbs":{"mode":"none","last":null,"seg":null,"run":null,"tripAtStop":null,"tripKm":0},"counters":{"odometerKm":4.778000000000003,"hoursMs":330000,"fuelL":0,"devOdometer":164040162,"devHours":null,"devFuel":null,"tripKm":4.728075237653164,"ignition":true,"lastTime":1795305930000},"events":{"ignition":true,"speeding":null,"parking":null}},"visits":{"fences":[]}}',
);

/** The stored form of a checkpoint's state (JSON text). */
export function packState(json: string): Buffer {
  const body = deflateRawSync(Buffer.from(json), { level: 9, dictionary: DICTIONARY });
  const out = Buffer.allocUnsafe(body.length + 1);
  out[0] = DEFLATED;
  body.copy(out, 1);
  return out;
}

/** The state's JSON text from its stored form: a packed BLOB, or text as stored before. */
export function unpackState(stored: string | Uint8Array): string {
  if (typeof stored === 'string') return stored;
  if (stored[0] !== DEFLATED) throw new Error(`unknown checkpoint state format ${stored[0]}`);
  return inflateRawSync(stored.subarray(1), { dictionary: DICTIONARY }).toString();
}
