/**
 * Place imports: place/batch_convert (tab-delimited rows -> place objects ready for place/create,
 * nothing stored) and place/upload (semicolon CSV with a header row, stored in one transaction).
 * Rules and choices: docs/places-zones.md.
 */
import { parse } from 'csv-parse/sync';
import { DomainError } from '../core/errors.ts';
import type { Services } from '../api/kernel.ts';
import type { UploadedFile } from '../api/server.ts';
import type { GeocoderType } from '../geocoder/types.ts';
import type { PlaceInput } from '../store/places.ts';
import type { UserRow } from '../store/users.ts';
import { coordinateCells, intCell, MAX_BATCH_ROWS, parseBatch, startLine, tagNamesCell, textCell, type RowError } from './batch.ts';
import { addressFor, locateRow } from './geocode.ts';

interface Converted {
  errors: RowError[];
  /** Complete when the row has no errors. */
  place: Omit<PlaceInput, 'lat' | 'lng'> & { lat: number | null; lng: number | null };
  tagNames: string[];
}

/** One row of cells (by field name) -> a place, geocoding the address when coordinates are missing. */
async function convertRow(services: Services, cells: Record<string, string>, defaultRadius: number, type?: GeocoderType): Promise<Converted> {
  const errors: RowError[] = [];
  const label = textCell(cells, 'label', 1, 200, errors);
  const description = textCell(cells, 'description', 0, 1024, errors);
  const address = textCell(cells, 'address', 0, 400, errors);
  const externalId = textCell(cells, 'external_id', 0, 32, errors);
  const radius = intCell(cells, 'radius', 1, 100_000, defaultRadius, errors);
  const at = await locateRow(services.geocoder, coordinateCells(cells, errors), address, errors, type);
  return {
    errors,
    place: { label, description, address, radius, external_id: externalId || null, lat: at?.lat ?? null, lng: at?.lng ?? null },
    tagNames: tagNamesCell(cells.tags),
  };
}

/** place/batch_convert: at most `room` (quota left) and MAX_BATCH_ROWS rows; the rest sets limit_exceeded. */
export async function batchPlaces(
  services: Services,
  owner: UserRow,
  batch: string,
  opts: { fields: string[]; default_radius: number; geocoder?: GeocoderType; room: number },
): Promise<{ list: Record<string, unknown>[]; limit_exceeded: boolean }> {
  const { rows, limitExceeded } = parseBatch(batch, opts.fields, Math.min(MAX_BATCH_ROWS, opts.room));
  const tagIds = new Map(services.store.tags.list(owner.id).map((t) => [t.name.toLowerCase(), t.id]));
  const list: Record<string, unknown>[] = [];
  for (const row of rows) {
    const { errors, place, tagNames } = await convertRow(services, row.cells, opts.default_radius, opts.geocoder);
    const tags = tagNames.map((n) => tagIds.get(n.toLowerCase())).filter((t): t is number => t !== undefined);
    const item: Record<string, unknown> = {
      label: place.label,
      description: place.description,
      location: { lat: place.lat, lng: place.lng, address: place.address, radius: place.radius },
      external_id: place.external_id,
    };
    // Ready for place/create: tags only when some exist (non-empty when present); names as written.
    if (tags.length) item.tags = [...new Set(tags)];
    if (tagNames.length) item.tag_names = tagNames;
    if (errors.length) item.errors = errors;
    list.push(item);
  }
  return { list, limit_exceeded: limitExceeded };
}

export const PLACE_CSV_HEADER = ['label', 'address', 'lat', 'lng', 'radius', 'external_id', 'description'] as const;
const CSV_TYPES = new Set(['text/csv', 'text/plain', 'application/csv', 'text/comma-separated-values', 'application/vnd.ms-excel', 'application/octet-stream', '']);
/** Data rows of one place/upload at most (beyond: 234). */
export const MAX_UPLOAD_ROWS = 5000;

/** The data rows of a place CSV as cells by header name; 234 for what is not such a file. */
export function readPlacesCsv(file: UploadedFile): Array<{ line: number; cells?: Record<string, string> }> {
  if (!CSV_TYPES.has(file.mimetype.split(';')[0].trim().toLowerCase()) && !/\.(csv|txt)$/i.test(file.filename)) {
    throw new DomainError(234, {}, `Invalid data format: expected a CSV file, got ${file.mimetype}`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(file.data);
  } catch {
    throw new DomainError(234, {}, 'Invalid data format: the file is not UTF-8 text');
  }
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    records = parse(text, { delimiter: ';', record_delimiter: ['\r\n', '\n', '\r'], relax_column_count: true, skip_empty_lines: true, bom: true, trim: true, info: true }) as unknown as typeof records;
  } catch (e) {
    throw new DomainError(234, {}, `Invalid data format: ${(e as Error).message}`);
  }
  const header = records[0]?.record.map((h) => h.toLowerCase());
  if (!header || header.join(';') !== PLACE_CSV_HEADER.join(';')) {
    throw new DomainError(234, {}, `Invalid data format: the first row must be the header ${PLACE_CSV_HEADER.join(';')}`);
  }
  const rows = records.slice(1).filter(({ record }) => record.some((c) => c !== ''));
  if (rows.length > MAX_UPLOAD_ROWS) throw new DomainError(234, {}, `Invalid data format: at most ${MAX_UPLOAD_ROWS} rows per file, got ${rows.length}`);
  return rows.map(({ record, info }) => ({
    line: startLine(record, info.lines),
    cells: record.length === PLACE_CSV_HEADER.length ? Object.fromEntries(PLACE_CSV_HEADER.map((h, i) => [h, record[i]])) : undefined,
  }));
}

interface UploadOpts {
  error_policy: 'ignore' | 'fail';
  duplicate_policy: 'skip' | 'update' | 'fail';
  default_radius: number;
  geocoder?: GeocoderType;
}

/** place/upload: check every row, then write all in one transaction (fail policies: nothing written). */
export async function uploadPlaces(services: Services, owner: UserRow, file: UploadedFile, opts: UploadOpts) {
  const { places } = services.store;
  const rows = readPlacesCsv(file);
  const bad: Array<{ line: number } & RowError> = [];
  const plan: Array<{ input: PlaceInput; updateId?: number }> = [];
  const planned = new Map<string, number>(); // external_id -> index in plan
  const duplicates: string[] = [];
  let skipped = 0;
  for (const row of rows) {
    if (!row.cells) {
      bad.push({ line: row.line, parameter: '(row)', error: `expected ${PLACE_CSV_HEADER.length} cells separated by ;` });
      continue;
    }
    const { errors, place } = await convertRow(services, row.cells, opts.default_radius, opts.geocoder);
    if (errors.length) {
      bad.push(...errors.map((e) => ({ line: row.line, ...e })));
      continue;
    }
    const input: PlaceInput = { ...place, lat: place.lat!, lng: place.lng!, address: await addressFor(services.geocoder, place.lat!, place.lng!, place.address, opts.geocoder) };
    const ext = input.external_id;
    const earlier = ext === null ? undefined : planned.get(ext);
    const stored = ext === null || earlier !== undefined ? undefined : places.byExternalId(owner.id, ext)[0];
    if (earlier !== undefined || stored) {
      if (opts.duplicate_policy === 'fail') duplicates.push(ext!);
      else if (opts.duplicate_policy === 'skip') skipped++;
      else if (earlier !== undefined) plan[earlier] = { ...plan[earlier], input };
      else planned.set(ext!, plan.push({ input, updateId: stored!.id }) - 1);
      continue;
    }
    if (ext !== null) planned.set(ext, plan.length);
    plan.push({ input });
  }
  const errorRows = new Set(bad.map((b) => b.line)).size;
  const details = bad.slice(0, 100);
  if (opts.error_policy === 'fail' && bad.length) {
    throw new DomainError(234, { total: rows.length, errors: errorRows, row_errors: details }, `Invalid data format: ${errorRows} bad row(s), first at line ${bad[0].line}; nothing was imported`);
  }
  if (duplicates.length) {
    throw new DomainError(247, { external_ids: [...new Set(duplicates)].slice(0, 100) }, `Entity already exists: places with external_id ${duplicates[0]}; nothing was imported`);
  }
  const creating = plan.filter((p) => p.updateId === undefined).length;
  const max = services.store.tariffs.get(owner.tariff_id)?.max_places ?? 0;
  const current = places.count(owner.id);
  if (current + creating > max) throw new DomainError(268, { limit: max }, `Over quota: the tariff allows ${max} places, ${current} exist and the file adds ${creating}; nothing was imported`);
  places.transaction(() => {
    for (const p of plan) {
      if (p.updateId === undefined) places.insert(owner.id, p.input);
      else places.change(owner.id, p.updateId, p.input);
    }
  });
  return { total: rows.length, errors: errorRows, created: creating, updated: plan.length - creating, skipped, row_errors: details };
}
