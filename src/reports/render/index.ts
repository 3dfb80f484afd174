/**
 * Report files: the renderers that turn a ReportBody (../model.ts) into a file (xlsx, xls, pdf, csv).
 * Renderers are pure (report in, bytes out) and run off the event loop in a worker pool
 * (./pool.ts, workers/render.ts); callers (report/tracker/download, checkin/list with `format`,
 * task/form/download, form/download) see only the ReportFiles interface, so the pool is wired in
 * once by src/main.ts. docs/reports.md, "Files", describes what each file holds.
 */
import { documentedReport } from '../documented.ts';
import type { ReportBody } from '../model.ts';
import { reportToCsv } from './csv.ts';
import { reportToPdf } from './pdf.ts';
import { reportToXlsx } from './xlsx.ts';

export { reportToCsv, reportToPdf, reportToXlsx };

/** `json`: the report as report/tracker/retrieve answers it (../documented.ts), made in the render thread too. */
export type FileFormat = 'xlsx' | 'xls' | 'pdf' | 'csv' | 'json';

export interface RenderOptions {
  /** PDF only: no title page and table of contents (report/tracker/download `headless`). */
  headless: boolean;
}

export interface RenderedFile {
  body: Buffer;
  /** Media type of the answer, e.g. application/vnd.openxmlformats-officedocument.spreadsheetml.sheet */
  contentType: string;
  /** File name extension without the dot, for Content-Disposition. */
  extension: string;
}

/**
 * A report, or a stored report's JSON as bytes: a month's report is tens of MiB of JSON, and parsing
 * it, then copying the objects to the render thread, held the event loop for seconds
 * (bench/reports); bytes are moved to the render thread and parsed there.
 */
export type ReportInput = ReportBody | Uint8Array;

/** The report of a ReportInput (parsed here when it is bytes). */
export function reportOf(input: ReportInput): ReportBody {
  if (!(input instanceof Uint8Array)) return input;
  return JSON.parse(Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString('utf8')) as ReportBody;
}

/** What the API needs to answer a file: render a report in the given format, off the event loop. */
export interface ReportFiles {
  render(format: FileFormat, report: ReportInput, options: RenderOptions): Promise<RenderedFile>;
}

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * Media type and extension of each format. `xls` is answered with the xlsx file, its media type and
 * extension: no library on the package registry that is still kept writes the legacy binary format
 * (docs/reports.md, "Files").
 */
export function fileKind(format: FileFormat): { contentType: string; extension: string } {
  switch (format) {
    case 'xlsx':
    case 'xls':
      return { contentType: XLSX_TYPE, extension: 'xlsx' };
    case 'pdf':
      return { contentType: 'application/pdf', extension: 'pdf' };
    case 'csv':
      return { contentType: 'text/csv; charset=utf-8', extension: 'csv' };
    case 'json':
      return { contentType: 'application/json', extension: 'json' };
    default:
      throw new Error(`unknown file format ${String(format)}`);
  }
}

/** The file's bytes, rendered on the calling thread (the worker's job; tests and tools without a pool). */
export async function renderBytes(format: FileFormat, report: ReportBody, options: RenderOptions): Promise<Buffer> {
  const kind = fileKind(format);
  if (kind.extension === 'xlsx') return reportToXlsx(report);
  if (kind.extension === 'pdf') return reportToPdf(report, options);
  if (kind.extension === 'json') return Buffer.from(JSON.stringify(documentedReport(report)), 'utf8');
  return reportToCsv(report);
}

export async function renderReport(format: FileFormat, report: ReportInput, options: RenderOptions): Promise<RenderedFile> {
  return { body: await renderBytes(format, reportOf(report), options), ...fileKind(format) };
}

/** The renderers on the calling thread, behind the same interface as the pool. */
export const inlineReportFiles: ReportFiles = { render: renderReport };
