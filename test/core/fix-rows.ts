/**
 * Rows of the `fixes` table as the gateway stores them, for the chunk codec's tests and bench:
 * decoded records are packed (src/gateway/packing.ts) and written by the writer's FixStore into a
 * real SQLite database (repeats of an instant merged with json_patch), then read back per source.
 * Sources: the simulator's device streams, and every message of ../shared/captures.
 */
import { openDatabase } from '../../src/store/db.ts';
import { FixStore } from '../../src/store/fixes.ts';
import { pack } from '../../src/gateway/packing.ts';
import { PROTOCOLS } from '../../protocols/index.ts';
import type { DecodeContext, DeviceRecord, Protocol } from '../../protocols/types.ts';
import { DEVICE_PROTOCOLS } from '../../src/simulator/devices/index.ts';
import { Vehicle, rng } from '../../src/simulator/vehicle.ts';
import type { SimFix } from '../../src/simulator/types.ts';
import type { StoredFix } from '../../src/core/fix-chunk.ts';
import { groups, messageLines, replayGroup } from '../protocols/harness.ts';
import { readdirSync } from 'node:fs';
import { capturesDir } from '../protocols/harness.ts';

const SELECT = 'SELECT source_id, time, lat, lng, alt, speed, course, satellites, hdop, precision, flags, received, attrs, odometer, hours, fuel_used FROM fixes ORDER BY source_id, time';

/** A store of its own: write messages (one device's records each, received at `now`), then read the rows per source. */
export class RowSink {
  private db = openDatabase(':memory:');
  private store = new FixStore(this.db);

  write(sourceId: number, records: DeviceRecord[], now: number): void {
    if (records.length) this.store.write([pack(sourceId, records, now)], now);
  }

  rows(): Map<number, StoredFix[]> {
    const out = new Map<number, StoredFix[]>();
    for (const r of this.db.prepare(SELECT).all() as Array<StoredFix & { source_id: number }>) {
      const { source_id, ...fix } = r;
      let list = out.get(source_id);
      if (!list) out.set(source_id, (list = []));
      list.push(fix);
    }
    this.db.close();
    return out;
  }
}

/** The simulator's protocols, by name. */
export const SIM_PROTOCOLS = Object.keys(DEVICE_PROTOCOLS);

export interface SimOptions {
  protocol: string;
  seed: number;
  start: number;
  hours: number;
  intervalS: number;
}

/**
 * One simulated tracker's rows: the vehicle model's records at `intervalS`, built into packets by
 * the device side, decoded by our protocol module, stored. Records go one per packet, received
 * 30-400 ms after their time; now and then the device is offline for a few minutes and sends what
 * it buffered in one packet (archive records, one receipt time).
 */
export function simulatorRows(o: SimOptions): StoredFix[] {
  const sink = new RowSink();
  writeSimulated(sink, 1, o);
  return sink.rows().get(1) ?? [];
}

export function writeSimulated(sink: RowSink, sourceId: number, o: SimOptions): void {
  for (const m of simulatedMessages(o)) sink.write(sourceId, m.records, m.now);
}

/** The simulated tracker's decoded messages, each with the time it was received. */
export function* simulatedMessages(o: SimOptions): Generator<{ records: DeviceRecord[]; now: number }> {
  const proto = PROTOCOLS.get(o.protocol)!;
  const device = DEVICE_PROTOCOLS[o.protocol].createDevice(String(350000000000000 + o.seed), { host: '127.0.0.1', port: 1 });
  const v = new Vehicle({ seed: o.seed });
  const rand = rng(o.seed * 31 + 7);
  const ctx: DecodeContext = { now: o.start, transport: o.protocol === 'osmand' ? 'http' : 'tcp', config: {}, session: {} };
  const decode = decoder(proto, ctx);
  const login = device.login();
  if (login) decode(login);
  const count = Math.floor((o.hours * 3600) / o.intervalS);
  let offline: SimFix[] = [];
  let offlineLeft = 0;
  for (let k = 0; k < count; k++) {
    if (k > 0) v.advance(o.intervalS);
    const fix = v.fix(o.start + k * o.intervalS * 1000);
    if (offlineLeft === 0 && rand() < 0.002) offlineLeft = 6 + Math.floor(rand() * 30);
    if (offlineLeft > 0) {
      offline.push(fix);
      if (--offlineLeft > 0 && k < count - 1) continue;
    }
    const batch = offline.length ? offline : [fix];
    const resend = offline.length > 0;
    offline = [];
    const now = fix.time + 30 + Math.floor(rand() * 370);
    ctx.now = now;
    for (let i = 0; i < batch.length; i += DEVICE_PROTOCOLS[o.protocol].maxRecords) {
      const records = decode(device.packet(batch.slice(i, i + DEVICE_PROTOCOLS[o.protocol].maxRecords), resend).bytes);
      yield { records, now };
    }
  }
}

/** Frames and decodes a device's bytes in one session (HTTP requests for osmand), giving the records. */
function decoder(p: Protocol, ctx: DecodeContext): (bytes: Buffer) => DeviceRecord[] {
  if (p.decodeHttp) {
    return (bytes) => {
      const raw = bytes.toString();
      const cut = raw.indexOf('\r\n\r\n');
      const head = raw.slice(0, cut);
      const [method, uri] = head.split(' ');
      const headers = Object.fromEntries(head.split('\r\n').slice(1).map((h) => [h.split(':')[0].toLowerCase(), h.slice(h.indexOf(':') + 1).trim()]));
      const r = p.decodeHttp!({ method, uri, headers, body: Buffer.from(raw.slice(cut + 4)) }, ctx);
      return r.records ?? [];
    };
  }
  const framer = p.createFramer!();
  let rest = Buffer.alloc(0);
  return (bytes) => {
    let buf = Buffer.concat([rest, bytes]);
    const out: DeviceRecord[] = [];
    for (let cut = framer.next(buf); cut; cut = framer.next(buf)) {
      const r = p.decode!(cut.frame, ctx);
      if (r.deviceId) ctx.deviceId = r.deviceId;
      out.push(...(r.records ?? []));
      buf = buf.subarray(cut.consumed);
    }
    rest = buf;
    return out;
  };
}

/**
 * Every record of every capture, stored as the gateway stores it: one source per protocol and
 * device (a group's device, or a record's own device id), each line received one second after
 * the one before. Returns the rows per source (time order, one row per instant).
 */
export function captureRows(): Array<{ source: string; rows: StoredFix[] }> {
  const sink = new RowSink();
  const ids = new Map<string, number>();
  let now = Date.UTC(2026, 0, 1);
  const files = readdirSync(capturesDir).filter((f) => f.endsWith('.jsonl'));
  for (const f of files) {
    const name = f.slice(0, -'.jsonl'.length);
    const protocol = PROTOCOLS.get(name);
    if (!protocol) continue;
    for (const group of groups(messageLines(name))) {
      const steps = replayGroup(protocol, group, now);
      let deviceId = '';
      for (const s of steps) {
        now += 1000;
        deviceId = s.result?.deviceId ?? deviceId;
        const byDevice = new Map<string, DeviceRecord[]>();
        for (const r of s.records) {
          const key = `${name}:${r.deviceId ?? deviceId}`;
          byDevice.set(key, [...(byDevice.get(key) ?? []), r]);
        }
        for (const [key, records] of byDevice) {
          if (!ids.has(key)) ids.set(key, ids.size + 1);
          sink.write(ids.get(key)!, records, now);
        }
      }
    }
  }
  const rows = sink.rows();
  return [...ids].map(([source, id]) => ({ source, rows: rows.get(id) ?? [] })).filter((s) => s.rows.length);
}
