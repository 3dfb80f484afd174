/**
 * The PostgreSQL engine's trackers, registered devices and their latest state (the SQLite engine's
 * trackers.ts, devices.ts, device-state.ts: the same rows and answers, docs/store.md).
 */
import type { Area } from '../contract.ts';
import type { TrackerStore, TrackerRow, NewTracker } from '../trackers.ts';
import { UNKNOWN_DEVICES_KEPT, type DeviceStore, type SourceEntry, type UnknownAttempts, type UnknownDevice } from '../devices.ts';
import { deviceStateOf, type DeviceState, type DeviceStateRow, type DeviceStateStore } from '../device-state.ts';
import { VersionedCache } from './accounts.ts';
import type { Sql } from './connect.ts';

const SELECT = `SELECT t.id, t.user_id, t.source_id, t.label, t.clone, t.deleted, t.status_listing_id, t.avatar_file_name,
  s.device_id, s.model, s.protocol, s.blocked, s.tariff_id, s.phone, s.has_gsm, s.bundled_sim, s.corrupted,
  s.first_seen, s.last_seen, s.creation_date AS source_creation_date, s.tariff_end_date,
  CASE WHEN e.id IS NULL THEN -1 ELSE COALESCE(e.department_id, 0) END AS group_id
  FROM trackers t JOIN sources s ON s.id = t.source_id LEFT JOIN employees e ON e.tracker_id = t.id`;

type Binding = { tag_id: number; ordinal: number };
type Listing = { trackers: TrackerRow[]; bindings: Map<number, Binding[]> };

export class PgTrackerStore implements Area<TrackerStore> {
  private cache: VersionedCache<Listing>;
  private select;
  constructor(private sql: Sql) {
    this.cache = new VersionedCache(sql, 'trackers');
    this.select = sql.unsafe(SELECT);
  }

  async list(userId: number): Promise<TrackerRow[]> {
    return (await this.listing(userId)).trackers;
  }
  /** Trackers with their tag bindings, cached until trackers, sources, tags or employees' trackers change. */
  async listing(userId: number): Promise<Listing> {
    return this.cache.get(`l${userId}`, async () => {
      const [trackers, bindings] = await Promise.all([
        this.sql<TrackerRow[]>`${this.select} WHERE t.user_id = ${userId} AND t.deleted = 0 ORDER BY t.id`,
        this.sql<{ tracker_id: number; tag_id: number; ordinal: number }[]>`
          SELECT tt.tracker_id, tt.tag_id, tt.ordinal FROM tracker_tags tt JOIN trackers t ON t.id = tt.tracker_id
          WHERE t.user_id = ${userId} AND t.deleted = 0 ORDER BY tt.tracker_id, tt.ordinal`,
      ]);
      const out = new Map<number, Binding[]>();
      for (const b of bindings) {
        let list = out.get(b.tracker_id);
        if (!list) out.set(b.tracker_id, (list = []));
        list.push({ tag_id: b.tag_id, ordinal: b.ordinal });
      }
      return { trackers: [...trackers], bindings: out };
    });
  }
  async get(userId: number, trackerId: number): Promise<TrackerRow | undefined> {
    return (await this.sql<TrackerRow[]>`${this.select} WHERE t.id = ${trackerId} AND t.user_id = ${userId} AND t.deleted = 0`)[0];
  }
  async getAny(trackerId: number): Promise<TrackerRow | undefined> {
    return (await this.sql<TrackerRow[]>`${this.select} WHERE t.id = ${trackerId}`)[0];
  }
  async bySource(sourceId: number): Promise<TrackerRow[]> {
    return [...(await this.sql<TrackerRow[]>`${this.select} WHERE t.source_id = ${sourceId} AND t.deleted = 0 ORDER BY t.clone, t.id`)];
  }
  async deviceExists(deviceId: string): Promise<boolean> {
    return (await this.sql`SELECT 1 FROM sources WHERE device_id = ${deviceId}`).length > 0;
  }
  /** The source and its first tracker in one statement (so both or neither). */
  async add(t: NewTracker): Promise<number> {
    const [r] = await this.sql`
      WITH s AS (
        INSERT INTO sources (device_id, model, protocol, tariff_id, phone, has_gsm, bundled_sim, creation_date)
        VALUES (${t.deviceId}, ${t.model ?? ''}, ${t.protocol}, ${t.tariffId}, ${t.phone ?? null}, ${t.hasGsm === false ? 0 : 1}, ${t.bundledSim ? 1 : 0}, ${t.now})
        RETURNING id)
      INSERT INTO trackers (user_id, source_id, label, clone) VALUES (${t.userId}, (SELECT id FROM s), ${t.label}, 0) RETURNING id`;
    return r.id as number;
  }
  async clone(of: TrackerRow, toUserId: number, label: string): Promise<number> {
    return (await this.sql`INSERT INTO trackers (user_id, source_id, label, clone) VALUES (${toUserId}, ${of.source_id}, ${label}, 1) RETURNING id`)[0].id as number;
  }
  async setBlocked(sourceId: number, blocked: boolean): Promise<void> {
    await this.sql`UPDATE sources SET blocked = ${blocked ? 1 : 0} WHERE id = ${sourceId}`;
  }
  async phoneInUse(phone: string, exceptSourceId: number): Promise<boolean> {
    return (await this.sql`SELECT id FROM sources WHERE phone = ${phone} AND id <> ${exceptSourceId} AND corrupted = 0 LIMIT 1`).length > 0;
  }
  async changePhone(sourceId: number, phone: string, apn: { name: string; user: string; password: string }): Promise<void> {
    await this.sql`UPDATE sources SET phone = ${phone}, apn_name = ${apn.name}, apn_user = ${apn.user}, apn_password = ${apn.password} WHERE id = ${sourceId}`;
  }
  /** Marks the tracker deleted and spoils its source's device id and phone, in one statement. */
  async corrupt(t: TrackerRow): Promise<void> {
    await this.sql`
      WITH gone AS (UPDATE trackers SET deleted = 1 WHERE id = ${t.id})
      UPDATE sources SET corrupted = 1, device_id = 'corrupted-' || id::text || '-' || device_id, phone = NULL WHERE id = ${t.source_id}`;
  }
  async markDeleted(trackerId: number): Promise<void> {
    await this.sql`UPDATE trackers SET deleted = 1 WHERE id = ${trackerId}`;
  }
  async setLabel(trackerId: number, label: string): Promise<void> {
    await this.sql`UPDATE trackers SET label = ${label} WHERE id = ${trackerId}`;
  }
  async setOwnedSourcesTariff(userId: number, tariffId: number): Promise<void> {
    await this.sql`UPDATE sources SET tariff_id = ${tariffId} WHERE id IN (SELECT source_id FROM trackers WHERE user_id = ${userId} AND clone = 0)`;
  }
  async vehicleLabel(userId: number, trackerId: number): Promise<string | null> {
    return ((await this.sql`SELECT label FROM vehicles WHERE user_id = ${userId} AND tracker_id = ${trackerId} ORDER BY id LIMIT 1`)[0]?.label as string | undefined) ?? null;
  }
  async dependents(trackerId: number): Promise<{ rules: number[]; vehicles: number[] }> {
    const [rules, vehicles] = await Promise.all([
      this.sql<{ id: number }[]>`SELECT rule_id AS id FROM rule_trackers WHERE tracker_id = ${trackerId} ORDER BY rule_id`,
      this.sql<{ id: number }[]>`SELECT id FROM vehicles WHERE tracker_id = ${trackerId} ORDER BY id`,
    ]);
    return { rules: rules.map((r) => r.id), vehicles: vehicles.map((r) => r.id) };
  }
  async sourcesVersion(): Promise<number> {
    return (await this.sql`SELECT value FROM versions WHERE name = 'trackers'`)[0].value as number;
  }
}

export class PgDeviceStore implements Area<DeviceStore> {
  constructor(private sql: Sql) {}
  /** Every registered, uncorrupted source, in id order; its live trackers' ids in id order (as SQLite's group_concat over the index). */
  async sources(): Promise<SourceEntry[]> {
    return [...(await this.sql<SourceEntry[]>`
      SELECT s.id, s.device_id, s.protocol, s.blocked,
             (SELECT string_agg(t.id::text, ',' ORDER BY t.id) FROM trackers t WHERE t.source_id = s.id AND t.deleted = 0) AS tracker_ids
      FROM sources s WHERE s.corrupted = 0 ORDER BY s.id`)];
  }
  async version(): Promise<number> {
    return (await this.sql`SELECT value FROM versions WHERE name = 'trackers'`)[0].value as number;
  }
  /**
   * Adds a batch of attempts (a repeat counts on its device's row), then drops all but the `keep`
   * devices seen most recently, in one transaction. The batch is folded per device first: one
   * INSERT ... ON CONFLICT may touch a row once, and the fold gives what SQLite's row-by-row
   * upserts give (the first attempt's first time, the last one's address, the latest time, the sum).
   */
  async recordUnknown(batch: UnknownAttempts[], keep = UNKNOWN_DEVICES_KEPT): Promise<void> {
    if (!batch.length) return;
    const byDevice = new Map<string, UnknownAttempts>();
    for (const u of batch) {
      const key = JSON.stringify([u.deviceId, u.protocol]);
      const seen = byDevice.get(key);
      if (!seen) byDevice.set(key, { ...u });
      else Object.assign(seen, { address: u.address, last: Math.max(seen.last, u.last), attempts: seen.attempts + u.attempts });
    }
    const rows = [...byDevice.values()];
    await this.sql.begin(async (tx) => {
      await tx`
        INSERT INTO unknown_devices (device_id, protocol, address, first_seen, last_seen, count)
        SELECT d, p, a, f, l, n FROM unnest(${rows.map((u) => u.deviceId)}::text[], ${rows.map((u) => u.protocol)}::text[], ${rows.map((u) => u.address)}::text[],
          ${rows.map((u) => u.first)}::bigint[], ${rows.map((u) => u.last)}::bigint[], ${rows.map((u) => u.attempts)}::bigint[]) WITH ORDINALITY AS b(d, p, a, f, l, n, i)
        ORDER BY i
        ON CONFLICT (device_id, protocol) DO UPDATE SET address = excluded.address,
          last_seen = greatest(unknown_devices.last_seen, excluded.last_seen), count = unknown_devices.count + excluded.count`;
      await tx`DELETE FROM unknown_devices WHERE id IN (SELECT id FROM unknown_devices ORDER BY last_seen DESC, id DESC OFFSET ${Math.max(0, keep)})`;
    });
  }
  async unknown(): Promise<UnknownDevice[]> {
    return [...(await this.sql<UnknownDevice[]>`
      SELECT device_id, protocol, address, first_seen, last_seen, count FROM unknown_devices ORDER BY last_seen DESC, id DESC`)];
  }
}

export class PgDeviceStateStore implements Area<DeviceStateStore> {
  constructor(private sql: Sql) {}
  async get(sourceId: number): Promise<DeviceState | undefined> {
    const [r] = await this.sql<DeviceStateRow[]>`
      SELECT source_id, fix_time, lat, lng, alt, speed, course, satellites, precision, last_time, attrs FROM device_state WHERE source_id = ${sourceId}`;
    return r && deviceStateOf(r);
  }
}
