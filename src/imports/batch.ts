/**
 * The tab-delimited `batch` of the batch_convert calls (places, zones, tasks, employees): one row
 * per line, cells in the order of the call's `fields`, as a spreadsheet's copy-and-paste gives
 * them (cells holding tabs, quotes or line breaks come quoted, "like ""this"""). Parsing is
 * csv-parse's; this module maps cells to field names and cells to values with per-row errors.
 */
import { parse } from 'csv-parse/sync';
import { DomainError } from '../core/errors.ts';

/** Rows converted by one batch_convert call at most (beyond: limit_exceeded). docs/places-zones.md */
export const MAX_BATCH_ROWS = 5000;

export interface RowError {
  parameter: string;
  error: string;
}

export interface BatchRow {
  /** 1-based line of the row in the batch. */
  line: number;
  /** Cell text by field name (trimmed; '' for a missing cell). */
  cells: Record<string, string>;
}

/**
 * Rows of a batch. Blank lines are skipped. 234 for text that is not a table: binary content,
 * unbalanced quotes, or a row with more cells than `fields` names.
 */
export function parseBatch(text: string, fields: readonly string[], maxRows = MAX_BATCH_ROWS): { rows: BatchRow[]; limitExceeded: boolean } {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(text)) throw new DomainError(234, {}, 'Invalid data format: the batch holds binary data; expected tab-delimited text');
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    records = parse(text.replace(/^\uFEFF/, ''), { delimiter: '\t', record_delimiter: ['\r\n', '\n', '\r'], relax_column_count: true, skip_empty_lines: true, info: true, bom: true }) as unknown as typeof records;
  } catch (e) {
    throw new DomainError(234, {}, `Invalid data format: ${(e as Error).message}`);
  }
  const rows: BatchRow[] = [];
  for (const { record, info } of records) {
    if (record.every((c) => c.trim() === '')) continue;
    if (record.length > fields.length) {
      throw new DomainError(234, {}, `Invalid data format: line ${startLine(record, info.lines)} has ${record.length} cells, but fields names ${fields.length} (${fields.join(', ')})`);
    }
    if (rows.length === maxRows) return { rows, limitExceeded: true };
    rows.push({ line: startLine(record, info.lines), cells: Object.fromEntries(fields.map((f, i) => [f, (record[i] ?? '').trim()])) });
  }
  return { rows, limitExceeded: false };
}

/** csv-parse counts the line a record ends on; a quoted cell may span lines. */
export function startLine(record: string[], endLine: number): number {
  return endLine - record.reduce((n, c) => n + (c.match(/\r\n|\r|\n/g)?.length ?? 0), 0);
}

/** A number cell: '' -> undefined; a decimal comma is accepted ("55,75"). NaN when not a number. */
export function numberCell(raw: string): number | undefined {
  if (raw === '') return undefined;
  const s = raw.replace(/\s/g, '').replace(',', '.');
  return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s) ? Number(s) : NaN;
}

/** Parse a coordinate pair of cells, recording errors; both or neither must be given. */
export function coordinateCells(cells: Record<string, string>, errors: RowError[]): { lat: number; lng: number } | undefined {
  const lat = numberCell(cells.lat ?? '');
  const lng = numberCell(cells.lng ?? '');
  if (lat === undefined && lng === undefined) return undefined;
  let ok = true;
  if (lat === undefined || Number.isNaN(lat) || lat < -90 || lat > 90) {
    errors.push({ parameter: 'lat', error: lat === undefined ? 'required when lng is given' : 'a latitude from -90 to 90 is expected' });
    ok = false;
  }
  if (lng === undefined || Number.isNaN(lng) || lng < -180 || lng > 180) {
    errors.push({ parameter: 'lng', error: lng === undefined ? 'required when lat is given' : 'a longitude from -180 to 180 is expected' });
    ok = false;
  }
  return ok ? { lat: lat!, lng: lng! } : undefined;
}

/** An integer cell within bounds, or `fallback` when empty. */
export function intCell(cells: Record<string, string>, name: string, min: number, max: number, fallback: number, errors: RowError[]): number {
  const v = numberCell(cells[name] ?? '');
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v < min || v > max) {
    errors.push({ parameter: name, error: `an integer from ${min} to ${max} is expected` });
    return fallback;
  }
  return v;
}

/** A text cell of at most `max` characters (`min` 1: required). */
export function textCell(cells: Record<string, string>, name: string, min: number, max: number, errors: RowError[]): string {
  const v = cells[name] ?? '';
  if (v.length < min) errors.push({ parameter: name, error: 'required' });
  else if (v.length > max) errors.push({ parameter: name, error: `at most ${max} characters` });
  return v.slice(0, max);
}

/** Tag names of a `tags` cell: comma- or semicolon-separated, trimmed, unique. */
export function tagNamesCell(raw: string | undefined): string[] {
  return [...new Set((raw ?? '').split(/[,;]/).map((t) => t.trim()).filter(Boolean))];
}
