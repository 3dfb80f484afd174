/** Task, checkpoint and route objects as the API answers them (spec: Task table; docs/tasks-api.md). */
import type { FieldValues } from '../store/fields.ts';
import type { DataStore } from '../store/contract.ts';
import type { Store } from '../store/index.ts';
import type { TaskRow } from '../store/tasks.ts';
import { formatDateTime } from '../core/time.ts';

const when = (ms: number | null, tz: string) => (ms === null ? null : formatDateTime(ms, tz));

export function taskView(r: TaskRow, tz: string, tags: number[], fields: FieldValues): Record<string, unknown> {
  const common = {
    id: r.id,
    user_id: r.user_id,
    tracker_id: r.tracker_id,
    label: r.label,
    description: r.description,
    creation_date: formatDateTime(r.creation_date, tz),
    from: when(r.from_time, tz),
    to: when(r.to_time, tz),
    external_id: r.external_id,
    status: r.status,
    status_change_date: formatDateTime(r.status_change_date, tz),
    origin: r.origin,
    tags,
    type: r.type,
  };
  if (r.type === 'route') return common;
  const out: Record<string, unknown> = {
    ...common,
    location: { lat: r.lat, lng: r.lng, address: r.address, radius: r.radius },
    max_delay: r.max_delay,
    min_stay_duration: r.min_stay_duration,
    arrival_date: when(r.arrival_date, tz),
    stay_duration: r.stay_duration,
    fields,
  };
  if (r.type === 'checkpoint') {
    out.route_id = r.route_id;
    out.order = r.ord;
  }
  return out;
}

/** Views of many rows: tags and custom fields loaded in one query each (no N+1). */
export async function loadTaskViews(data: DataStore, rows: TaskRow[], tz: string): Promise<Array<Record<string, unknown>>> {
  const ids = rows.map((r) => r.id);
  return viewsOf(rows, tz, await data.tags.entityTags('task', ids), await data.fields.load('task', ids));
}

/**
 * loadTaskViews on the synchronous store, for the field app's task feed (src/api/app.ts), whose
 * pages are built synchronously; the same views.
 */
export function taskViews(store: Store, rows: TaskRow[], tz: string): Array<Record<string, unknown>> {
  const ids = rows.map((r) => r.id);
  return viewsOf(rows, tz, store.tags.entityTags('task', ids), store.fields.load('task', ids));
}

function viewsOf(rows: TaskRow[], tz: string, tags: Map<number, number[]>, fields: Map<number, FieldValues>): Array<Record<string, unknown>> {
  return rows.map((r) => taskView(r, tz, tags.get(r.id) ?? [], fields.get(r.id) ?? {}));
}
