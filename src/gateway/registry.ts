/**
 * Which devices may send data: an in-memory map of registered sources, reloaded when the
 * database's tracker version moves (checked every second, so a tracker added with the admin
 * command is recognised within 2 s). Unknown devices are recorded, at most once per device and
 * interval, so a device retrying forever costs no database write per attempt.
 */
import type { DeviceStore, SourceEntry } from '../store/devices.ts';

export interface Source {
  id: number;
  deviceId: string;
  protocol: string;
  blocked: boolean;
  trackerIds: number[];
}

export class DeviceRegistry {
  private byDevice = new Map<string, Source>();
  private version = -1;
  private timer?: NodeJS.Timeout;
  private unknownPending = new Map<string, { protocol: string; address: string; at: number; attempts: number }>();
  private unknownWritten = new Map<string, number>();

  constructor(
    private store: DeviceStore,
    private opts: { pollMs?: number; unknownIntervalMs?: number; onChange?: () => void } = {},
  ) {
    this.reload();
    this.timer = setInterval(() => this.refresh(), opts.pollMs ?? 1000);
    this.timer.unref();
  }

  /** Reload when the version moved. */
  refresh(): void {
    try {
      if (this.store.version() !== this.version) this.reload();
      this.flushUnknown();
    } catch {
      // the database is busy or gone: keep the current map, try again on the next tick
    }
  }

  private reload(): void {
    this.version = this.store.version();
    const map = new Map<string, Source>();
    for (const s of this.store.sources()) map.set(s.device_id, toSource(s));
    this.byDevice = map;
    this.opts.onChange?.();
  }

  /** The registered source of a device id (also tried without leading zeros, as some devices pad their ids). */
  lookup(deviceId: string): Source | undefined {
    return this.byDevice.get(deviceId) ?? this.byDevice.get(deviceId.replace(/^0+(?=.)/, ''));
  }

  bySourceId(id: number): Source | undefined {
    for (const s of this.byDevice.values()) if (s.id === id) return s;
    return undefined;
  }

  /** Note an unknown device; written to the database in the next refresh, throttled per device. */
  noteUnknown(deviceId: string, protocol: string, address: string, at: number): void {
    const key = `${protocol}\u0000${deviceId}`;
    const p = this.unknownPending.get(key);
    if (p) {
      p.attempts++;
      p.at = at;
      p.address = address;
    } else if (this.unknownPending.size < 10_000) this.unknownPending.set(key, { protocol, address, at, attempts: 1 });
  }

  private flushUnknown(): void {
    const interval = this.opts.unknownIntervalMs ?? 10_000;
    const now = Date.now();
    for (const [key, p] of this.unknownPending) {
      const last = this.unknownWritten.get(key) ?? 0;
      if (now - last < interval && last) continue;
      this.store.recordUnknown(key.split('\u0000')[1], p.protocol, p.address, p.at, p.attempts);
      this.unknownWritten.set(key, now);
      this.unknownPending.delete(key);
    }
    if (this.unknownWritten.size > 100_000) this.unknownWritten.clear();
  }

  close(): void {
    clearInterval(this.timer);
    try {
      this.unknownWritten.clear();
      this.flushUnknown();
    } catch {
      /* closing anyway */
    }
  }
}

function toSource(s: SourceEntry): Source {
  return { id: s.id, deviceId: s.device_id, protocol: s.protocol, blocked: !!s.blocked, trackerIds: s.tracker_ids ? s.tracker_ids.split(',').map(Number) : [] };
}
