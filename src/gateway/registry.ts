/**
 * Which devices may send data: an in-memory map of registered sources, reloaded when the
 * database's tracker version moves (checked every second, so a tracker added with the admin
 * command is recognised within 2 s). Unknown devices are gathered in memory (the newest
 * UNKNOWN_DEVICES_KEPT, repeats counted) and written in one transaction per tick, so a flood of
 * attempts costs no database write per attempt and the list stays bounded.
 */
import { UNKNOWN_DEVICES_KEPT, type DeviceStore, type SourceEntry, type UnknownAttempts } from '../store/devices.ts';

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
  /** Attempts of unknown devices since the last write, least recently seen first. */
  private unknownPending = new Map<string, UnknownAttempts>();

  constructor(
    private store: DeviceStore,
    private opts: { pollMs?: number; onChange?: () => void } = {},
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

  /** Note an unknown device's attempt; written in the next refresh. */
  noteUnknown(deviceId: string, protocol: string, address: string, at: number): void {
    const key = `${protocol}\u0000${deviceId}`;
    const p = this.unknownPending.get(key);
    if (p) {
      p.attempts++;
      p.last = Math.max(p.last, at);
      p.address = address;
      // Moved to the end: the map stays ordered from least to most recently seen.
      this.unknownPending.delete(key);
      this.unknownPending.set(key, p);
      return;
    }
    // Only the newest entries are kept in the database, so older ones need not be written at all.
    if (this.unknownPending.size >= UNKNOWN_DEVICES_KEPT) this.unknownPending.delete(this.unknownPending.keys().next().value!);
    this.unknownPending.set(key, { deviceId, protocol, address, first: at, last: at, attempts: 1 });
  }

  private flushUnknown(): void {
    if (!this.unknownPending.size) return;
    const batch = [...this.unknownPending.values()];
    this.unknownPending.clear();
    this.store.recordUnknown(batch);
  }

  close(): void {
    clearInterval(this.timer);
    try {
      this.flushUnknown();
    } catch {
      /* closing anyway */
    }
  }
}

function toSource(s: SourceEntry): Source {
  return { id: s.id, deviceId: s.device_id, protocol: s.protocol, blocked: !!s.blocked, trackerIds: s.tracker_ids ? s.tracker_ids.split(',').map(Number) : [] };
}
