/**
 * The place CSV of place/upload: semicolon-separated, UTF-8, with a header row. Read in the upload
 * worker (src/imports/upload-tasks.ts); the rows are checked and stored by src/imports/places.ts.
 */
import { parse } from 'csv-parse/sync';
import { DomainError } from '../core/errors.ts';
import { startLine } from './batch.ts';
import type { UploadBytes } from './kml.ts';

/** A data row: its line (the header is line 1) and its cells by header name (absent: wrong cell count). */
export interface CsvRow {
  line: number;
  cells?: Record<string, string>;
}

export const PLACE_CSV_HEADER = ['label', 'address', 'lat', 'lng', 'radius', 'external_id', 'description'] as const;
const CSV_TYPES = new Set(['text/csv', 'text/plain', 'application/csv', 'text/comma-separated-values', 'application/vnd.ms-excel', 'application/octet-stream', '']);
/** Data rows of one place/upload at most (beyond: 234). */
export const MAX_UPLOAD_ROWS = 5000;

/** The data rows of a place CSV as cells by header name; 234 for what is not such a file. */
export function readPlacesCsv(file: UploadBytes): CsvRow[] {
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

