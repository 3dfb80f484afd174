/**
 * Report files: the renderers that turn a ReportBody (../model.ts) into a file (xlsx, xls, pdf, csv).
 * Renderers are pure (report in, bytes out) and run off the event loop in a worker pool; callers
 * (report/tracker/download, checkin/list with `format`, task/form/download, form/download) see only
 * the ReportFiles interface, so the pool is wired in once by src/main.ts.
 * The first versions of the renderers come with the renderer work of issue 12; until then they refuse.
 */
import type { ReportBody } from '../model.ts';

export type FileFormat = 'xlsx' | 'xls' | 'pdf' | 'csv';

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

/** What the API needs to answer a file: render a report in the given format, off the event loop. */
export interface ReportFiles {
  render(format: FileFormat, report: ReportBody, options: RenderOptions): Promise<RenderedFile>;
}

export async function reportToXlsx(_report: ReportBody): Promise<Buffer> {
  throw new Error('xlsx renderer not built yet');
}

export async function reportToPdf(_report: ReportBody, _options: RenderOptions): Promise<Buffer> {
  throw new Error('pdf renderer not built yet');
}
