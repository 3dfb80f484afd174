/** Tariffs: features, quotas and storage limits of users and trackers. */
import type { DB } from './db.ts';

export interface TariffRow {
  id: number;
  name: string;
  has_reports: number;
  has_tasks: number;
  has_chat: number;
  has_statuses: number;
  max_places: number;
  max_zones: number;
  max_statuses: number;
  max_retranslators: number;
  max_map_layers: number;
  max_time_span_days: number;
  track_storage_days: number;
  allowed_maps: string;
  premium_gis: number;
}

/** Settable tariff members and their column types, the one list the admin command and the store share. */
export const TARIFF_FIELDS = {
  has_reports: 'boolean',
  has_tasks: 'boolean',
  has_chat: 'boolean',
  has_statuses: 'boolean',
  max_places: 'int',
  max_zones: 'int',
  max_statuses: 'int',
  max_retranslators: 'int',
  max_map_layers: 'int',
  max_time_span_days: 'int',
  track_storage_days: 'int',
  allowed_maps: 'list',
  premium_gis: 'boolean',
} as const;
export type TariffField = keyof typeof TARIFF_FIELDS;
export type TariffChanges = Partial<Record<TariffField, number | string[] | boolean>>;

export class TariffStore {
  private byId;
  private insertCopy;
  constructor(private db: DB) {
    this.byId = db.prepare<[number], TariffRow>('SELECT * FROM tariffs WHERE id = ?');
    const cols = Object.keys(TARIFF_FIELDS).join(', ');
    this.insertCopy = db.prepare(`INSERT INTO tariffs (name, ${cols}) SELECT ?, ${cols} FROM tariffs WHERE id = ?`);
  }
  get(id: number): TariffRow | undefined {
    return this.byId.get(id);
  }
  /** A new tariff copied from `fromId`, so changing it affects nobody else. */
  copy(fromId: number, name: string): number {
    return Number(this.insertCopy.run(name, fromId).lastInsertRowid);
  }
  update(id: number, changes: TariffChanges): void {
    const entries = Object.entries(changes).filter(([k]) => k in TARIFF_FIELDS);
    if (!entries.length) return;
    // Column names come from the TARIFF_FIELDS whitelist above, never from input.
    const sql = `UPDATE tariffs SET ${entries.map(([k]) => `${k} = ?`).join(', ')} WHERE id = ?`;
    const values = entries.map(([, v]) => (Array.isArray(v) ? JSON.stringify(v) : typeof v === 'boolean' ? (v ? 1 : 0) : v));
    this.db.prepare(sql).run(...values, id);
  }
}
