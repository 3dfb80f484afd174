/**
 * Place imports: place/batch_convert (tab-delimited rows -> place objects ready for place/create,
 * nothing stored) and place/upload (semicolon CSV with a header row, stored all or nothing).
 * Rules and choices: docs/places-zones.md.
 */
import { DomainError } from '../core/errors.ts';
import type { UploadedFile } from '../core/upload.ts';
import type { Geocoder, GeocoderType } from '../geocoder/types.ts';
import type { DataStore } from '../store/contract.ts';
import type { Store } from '../store/index.ts';
import type { PlaceInput } from '../store/places.ts';
import type { UserRow } from '../store/users.ts';
import { coordinateCells, intCell, MAX_BATCH_ROWS, parseBatch, tagNamesCell, textCell, type RowError } from './batch.ts';
import { addressFor, locateRow } from './geocode.ts';
import { PLACE_CSV_HEADER } from './places-csv.ts';
import { Pacer, yieldToOthers } from './pacing.ts';
import { stagedUpload } from './staging.ts';
import { inlineUploads, type UploadRunner } from './upload-pool.ts';

/** What the place imports use. `uploads` runs the file work (default: on this thread). */
export interface ImportDeps {
  store: Store;
  geocoder: Geocoder;
  uploads?: UploadRunner;
  /** The clock (ms UTC); default Date.now. */
  now?: () => number;
}

interface Converted {
  errors: RowError[];
  /** Complete when the row has no errors. */
  place: Omit<PlaceInput, 'lat' | 'lng'> & { lat: number | null; lng: number | null };
  tagNames: string[];
}

/** One row of cells (by field name) -> a place, geocoding the address when coordinates are missing. */
async function convertRow(deps: ImportDeps, cells: Record<string, string>, defaultRadius: number, type?: GeocoderType): Promise<Converted> {
  const errors: RowError[] = [];
  const label = textCell(cells, 'label', 1, 200, errors);
  const description = textCell(cells, 'description', 0, 1024, errors);
  const address = textCell(cells, 'address', 0, 400, errors);
  const externalId = textCell(cells, 'external_id', 0, 32, errors);
  const radius = intCell(cells, 'radius', 1, 100_000, defaultRadius, errors);
  const at = await locateRow(deps.geocoder, coordinateCells(cells, errors), address, errors, type);
  return {
    errors,
    place: { label, description, address, radius, external_id: externalId || null, lat: at?.lat ?? null, lng: at?.lng ?? null },
    tagNames: tagNamesCell(cells.tags),
  };
}

/** place/batch_convert: at most `room` (quota left) and MAX_BATCH_ROWS rows; the rest sets limit_exceeded. */
export async function batchPlaces(
  deps: ImportDeps,
  owner: UserRow,
  batch: string,
  opts: { fields: string[]; default_radius: number; geocoder?: GeocoderType; room: number },
): Promise<{ list: Record<string, unknown>[]; limit_exceeded: boolean }> {
  const { rows, limitExceeded } = parseBatch(batch, opts.fields, Math.min(MAX_BATCH_ROWS, opts.room));
  const tagIds = new Map((await deps.store.data.tags.list(owner.id)).map((t) => [t.name.toLowerCase(), t.id]));
  const list: Record<string, unknown>[] = [];
  for (const row of rows) {
    const { errors, place, tagNames } = await convertRow(deps, row.cells, opts.default_radius, opts.geocoder);
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

interface UploadOpts {
  error_policy: 'ignore' | 'fail';
  duplicate_policy: 'skip' | 'update' | 'fail';
  default_radius: number;
  geocoder?: GeocoderType;
}

/** Rows of place/upload written per transaction; other calls run between transactions. */
export const PLACE_BATCH_ROWS = 500;

/**
 * place/upload: the file is read in the upload worker; every row is checked (geocoding, yielding to
 * other calls now and then), then written in batches (fail policies: nothing written).
 */
export async function uploadPlaces(deps: ImportDeps, owner: UserRow, file: UploadedFile, opts: UploadOpts) {
  const data = deps.store.data;
  const result = await (deps.uploads ?? inlineUploads).run({ kind: 'places-csv', file: { filename: file.filename, mimetype: file.mimetype, data: file.data } });
  if (!('rows' in result)) throw new Error('place/upload: the worker answered no rows');
  const { rows } = result;
  const pacer = new Pacer();
  const bad: Array<{ line: number } & RowError> = [];
  const plan: Array<{ input: PlaceInput; updateId?: number }> = [];
  const planned = new Map<string, number>(); // external_id -> index in plan
  const duplicates: string[] = [];
  let skipped = 0;
  for (const row of rows) {
    await pacer.step();
    if (!row.cells) {
      bad.push({ line: row.line, parameter: '(row)', error: `expected ${PLACE_CSV_HEADER.length} cells separated by ;` });
      continue;
    }
    const { errors, place } = await convertRow(deps, row.cells, opts.default_radius, opts.geocoder);
    if (errors.length) {
      bad.push(...errors.map((e) => ({ line: row.line, ...e })));
      continue;
    }
    const input: PlaceInput = { ...place, lat: place.lat!, lng: place.lng!, address: await addressFor(deps.geocoder, place.lat!, place.lng!, place.address, opts.geocoder) };
    const ext = input.external_id;
    const earlier = ext === null ? undefined : planned.get(ext);
    const stored = ext === null || earlier !== undefined ? undefined : (await data.places.byExternalId(owner.id, ext))[0];
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
  await checkPlaceQuota(data, owner, creating);
  await storePlaces(deps, owner, plan);
  return { total: rows.length, errors: errorRows, created: creating, updated: plan.length - creating, skipped, row_errors: details };
}

async function checkPlaceQuota(data: DataStore, owner: UserRow, creating: number): Promise<void> {
  const max = (await data.tariffs.get(owner.tariff_id))?.max_places ?? 0;
  const current = await data.places.count(owner.id);
  if (current + creating > max) throw new DomainError(268, { limit: max }, `Over quota: the tariff allows ${max} places, ${current} exist and the file adds ${creating}; nothing was imported`);
}

/**
 * Write the new places in batches of PLACE_BATCH_ROWS, each its own transaction, yielding between
 * them, invisible until the last transaction, which also makes the updates and shows them all
 * (src/imports/staging.ts): the upload is all or nothing, for other calls and across a crash.
 */
async function storePlaces(deps: ImportDeps, owner: UserRow, plan: Array<{ input: PlaceInput; updateId?: number }>): Promise<void> {
  const data = deps.store.data;
  const creating = plan.filter((p) => p.updateId === undefined).map((p) => p.input);
  await stagedUpload(deps.store, owner.id, 'place', (deps.now ?? Date.now)(), {
    async write(uploadId) {
      for (let i = 0; i < creating.length; i += PLACE_BATCH_ROWS) {
        await data.places.stage(uploadId, creating.slice(i, i + PLACE_BATCH_ROWS));
        await yieldToOthers();
      }
    },
    async commit(uploadId, tx) {
      // Again at the commit: another upload may have stored places meanwhile.
      await checkPlaceQuota(tx, owner, creating.length);
      for (const p of plan) if (p.updateId !== undefined) await tx.places.changeInUpload(uploadId, owner.id, p.updateId, p.input);
    },
  });
}
