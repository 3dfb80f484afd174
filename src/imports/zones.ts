/** zone/batch_convert: tab-delimited rows -> circle zone objects ready for zone/create (nothing stored). */
import type { GeocoderType } from '../geocoder/types.ts';
import type { UserRow } from '../store/users.ts';
import { coordinateCells, intCell, MAX_BATCH_ROWS, parseBatch, tagNamesCell, textCell, type RowError } from './batch.ts';
import { locateRow } from './geocode.ts';
import type { ImportDeps } from './places.ts';

const COLOR = /^[0-9A-Fa-f]{6}$/;

export async function batchZones(
  deps: ImportDeps,
  owner: UserRow,
  batch: string,
  opts: { fields: string[]; default_radius: number; geocoder?: GeocoderType; room: number },
): Promise<{ list: Record<string, unknown>[]; limit_exceeded: boolean }> {
  const { rows, limitExceeded } = parseBatch(batch, opts.fields, Math.min(MAX_BATCH_ROWS, opts.room));
  const tagIds = new Map((await deps.store.data.tags.list(owner.id)).map((t) => [t.name.toLowerCase(), t.id]));
  const list: Record<string, unknown>[] = [];
  for (const { cells } of rows) {
    const errors: RowError[] = [];
    const label = textCell(cells, 'label', 1, 200, errors);
    const address = textCell(cells, 'address', 0, 400, errors);
    const radius = intCell(cells, 'radius', 1, 100_000, opts.default_radius, errors);
    let color = (cells.color ?? '').toUpperCase() || '27A9E3';
    if (!COLOR.test(color)) {
      errors.push({ parameter: 'color', error: '3-byte RGB hex, e.g. 27A9E3' });
      color = '27A9E3';
    }
    // Spec: address is required if no coordinates are given, lat/lng if no address is given.
    const at = await locateRow(deps.geocoder, coordinateCells(cells, errors), address, errors, opts.geocoder);
    const tagNames = tagNamesCell(cells.tags);
    const tags = [...new Set(tagNames.map((n) => tagIds.get(n.toLowerCase())).filter((t): t is number => t !== undefined))];
    const item: Record<string, unknown> = { type: 'circle', label, address, color, radius, center: { lat: at?.lat ?? null, lng: at?.lng ?? null } };
    if (tags.length) item.tags = tags;
    if (tagNames.length) item.tag_names = tagNames;
    if (errors.length) item.errors = errors;
    list.push(item);
  }
  return { list, limit_exceeded: limitExceeded };
}
