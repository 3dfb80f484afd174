/**
 * `runSimulation`: N virtual trackers of one protocol over real sockets for a bounded time.
 * Two paces: `interval > 0` takes a record every `interval` seconds per tracker on the wall clock
 * (demos); `interval 0` is flood mode for benchmarks: a tracker refills its buffer as soon as the
 * previous packet is answered, records 1 s apart in simulated time from `startTime`.
 * Record times are unique per tracker, since the store keys fixes by (tracker, time).
 */
import { DEVICE_PROTOCOLS } from './devices/index.ts';
import { VirtualTracker, type TrackerEnv } from './tracker.ts';
import type { SimFix, SimulationStats } from './types.ts';
export type { SimulationStats } from './types.ts';
import { Vehicle } from './vehicle.ts';

export interface SimulationOptions {
  protocol: string;
  trackers: number;
  /** Seconds between records of one tracker; 0 = flood (as fast as the server answers). */
  interval: number;
  /** Seconds of sending; then what is buffered is flushed for up to `drainTimeout` seconds. */
  duration: number;
  host?: string;
  /** Default: the protocol's conventional port. */
  port?: number;
  deviceIds?: string[];
  /** Ids are the prefix plus a running number (from 1), zero-padded to 15 characters. */
  deviceIdPrefix?: string;
  /** Records per packet (default 1); a tracker sends once it has this many buffered. */
  recordsPerPacket?: number;
  /** Called when the server acknowledges records (in order, per tracker). */
  onAck?(deviceId: string, records: Array<SimFix>): void;
  onProgress?(stats: SimulationStats): void;
  /** Seconds between `onProgress` calls (default 5). */
  progressInterval?: number;
  signal?: AbortSignal;
  /** Seconds to wait for a connection, login answer or ACK before dropping the link (default 30). */
  ackTimeout?: number;
  /** Reconnect backoff in seconds, [first, largest] (default [0.5, 30]). */
  backoff?: [number, number];
  /** Seconds to flush buffers after `duration` (default 10). */
  drainTimeout?: number;
  /** Connection attempts in progress at once (default 256): 10,000 trackers do not SYN at once. */
  connectConcurrency?: number;
  /** Records a tracker keeps before dropping its oldest (default 100,000). */
  bufferLimit?: number;
  /** Flood mode: time of the first record, ms (default: a week ago, on a whole second). */
  startTime?: number;
  center?: { lat: number; lng: number };
  radiusKm?: number;
  /** Seed of the vehicles (tracker i uses seed + i). */
  seed?: number;
}


export class SimulationOptionError extends Error {}

function check(ok: boolean, message: string): void {
  if (!ok) throw new SimulationOptionError(message);
}

export function deviceIdsFor(opts: Pick<SimulationOptions, 'trackers' | 'deviceIds' | 'deviceIdPrefix'>): string[] {
  if (opts.deviceIds) return opts.deviceIds;
  const prefix = opts.deviceIdPrefix ?? '35000000000';
  const width = Math.max(1, 15 - prefix.length);
  return Array.from({ length: opts.trackers }, (_, i) => prefix + String(i + 1).padStart(width, '0'));
}

/** A counting semaphore for connection attempts. */
function slots(limit: number): () => Promise<() => void> {
  let free = limit;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  return () =>
    new Promise((resolve) => {
      if (free > 0) {
        free--;
        resolve(release);
      } else waiting.push(() => resolve(release));
    });
}

export async function runSimulation(opts: SimulationOptions): Promise<SimulationStats> {
  const protocol = DEVICE_PROTOCOLS[opts.protocol];
  check(!!protocol, `unknown protocol ${opts.protocol}; the simulator speaks ${Object.keys(DEVICE_PROTOCOLS).join(', ')}`);
  check(Number.isInteger(opts.trackers) && opts.trackers >= 1 && opts.trackers <= 100_000, 'trackers: a whole number from 1 to 100000');
  check(Number.isFinite(opts.interval) && opts.interval >= 0 && opts.interval <= 86_400, 'interval: seconds from 0 to 86400');
  check(Number.isFinite(opts.duration) && opts.duration > 0 && opts.duration <= 7 * 86_400, 'duration: seconds, more than 0, at most a week');
  const perPacket = opts.recordsPerPacket ?? 1;
  check(Number.isInteger(perPacket) && perPacket >= 1 && perPacket <= protocol.maxRecords, `recordsPerPacket: 1 to ${protocol.maxRecords} for ${protocol.name}`);
  const ids = deviceIdsFor(opts);
  check(ids.length === opts.trackers, `deviceIds: ${ids.length} ids for ${opts.trackers} trackers`);
  check(new Set(ids).size === ids.length, 'deviceIds: ids repeat');
  const bad = ids.find((id) => !protocol.idPattern.test(id));
  check(bad === undefined, `device id ${bad} does not fit ${protocol.name} (${protocol.idPattern})`);
  const port = opts.port ?? protocol.defaultPort;
  check(Number.isInteger(port) && port >= 1 && port <= 65535, 'port: 1 to 65535');
  const host = opts.host ?? '127.0.0.1';

  const started = Date.now();
  const stats: SimulationStats = { trackers: ids.length, connected: 0, connects: 0, disconnects: 0, sent: 0, resent: 0, acked: 0, refused: 0, dropped: 0, errors: 0, timeouts: 0, commands: 0, pending: 0, elapsedMs: 0 };
  const seed = opts.seed ?? 1;
  const vehicles = new Map<VirtualTracker, Vehicle>();
  const flood = opts.interval === 0;
  const floodTime = new Map<VirtualTracker, number>();
  const floodStart = opts.startTime ?? Math.floor(started / 1000) * 1000 - 7 * 86_400_000;
  let generating = true;

  const env: TrackerEnv = {
    host,
    port,
    recordsPerPacket: perPacket,
    ackTimeoutMs: (opts.ackTimeout ?? 30) * 1000,
    backoffMs: [(opts.backoff?.[0] ?? 0.5) * 1000, (opts.backoff?.[1] ?? 30) * 1000],
    bufferLimit: opts.bufferLimit ?? 100_000,
    stats,
    connectSlot: slots(opts.connectConcurrency ?? 256),
    onAck: opts.onAck,
    refill: flood
      ? (t, count) => {
          if (!generating) return;
          const v = vehicles.get(t)!;
          let time = floodTime.get(t)!;
          for (let i = 0; i < count; i++, time += 1000) {
            v.advance(1);
            t.push(v.fix(time));
          }
          floodTime.set(t, time);
        }
      : undefined,
  };
  const trackers = ids.map((id, i) => {
    const t = new VirtualTracker(id, protocol.createDevice(id, { host, port }), env);
    vehicles.set(t, new Vehicle({ seed: seed + i, center: opts.center, radiusKm: opts.radiusKm }));
    floodTime.set(t, floodStart);
    return t;
  });

  // wall-clock pace: tracker i reports at t0 + phase_i + k * interval, phases spread over one interval
  const timers = new Set<NodeJS.Timeout>();
  const end = started + opts.duration * 1000;
  if (!flood) {
    const intervalMs = opts.interval * 1000;
    const t0 = started;
    trackers.forEach((t, i) => {
      const v = vehicles.get(t)!;
      const phase = Math.floor((i / trackers.length) * intervalMs);
      const tick = (k: number) => {
        const time = Math.round(t0 + phase + k * intervalMs);
        if (time > end) return;
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!generating) return;
          if (k > 0) v.advance(opts.interval);
          t.add(v.fix(time));
          tick(k + 1);
        }, Math.max(0, time - Date.now()));
        timers.add(timer);
      };
      tick(0);
    });
  }

  const progress = opts.onProgress
    ? setInterval(() => opts.onProgress!(snapshot()), (opts.progressInterval ?? 5) * 1000)
    : undefined;
  function snapshot(): SimulationStats {
    stats.pending = trackers.reduce((n, t) => n + t.buffered, 0);
    stats.elapsedMs = Date.now() - started;
    return { ...stats };
  }

  for (const t of trackers) void t.connect();

  await new Promise<void>((resolve) => {
    let drainTimer: NodeJS.Timeout | undefined;
    let poll: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(runTimer);
      clearTimeout(drainTimer);
      clearInterval(poll);
      opts.signal?.removeEventListener('abort', finish);
      generating = false;
      for (const timer of timers) clearTimeout(timer);
      for (const t of trackers) t.stop();
      resolve();
    };
    // duration over: no new records; flush what is buffered, then close
    const runTimer = setTimeout(() => {
      generating = false;
      for (const t of trackers) {
        t.flushing = true;
        t.pump();
      }
      drainTimer = setTimeout(finish, (opts.drainTimeout ?? 10) * 1000);
      poll = setInterval(() => {
        if (trackers.every((t) => t.idle)) finish();
      }, 20);
    }, Math.max(0, end - Date.now()) + (flood ? 0 : 5)); // let the last tick at `end` fire
    if (opts.signal?.aborted) finish();
    else opts.signal?.addEventListener('abort', finish, { once: true });
  });
  clearInterval(progress);
  return snapshot();
}
