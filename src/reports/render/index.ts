/**
 * Report files: the renderers that turn a ReportBody (../model.ts) into an xlsx workbook or a PDF.
 * Both run off the event loop (in the report worker) and return the whole file.
 * The first versions of these two functions come with the renderer work of issue 12; until then they refuse.
 */
import type { ReportBody } from '../model.ts';

export interface RenderOptions {
  /** PDF only: no title page and table of contents (report/tracker/download `headless`). */
  headless: boolean;
}

export async function reportToXlsx(_report: ReportBody): Promise<Buffer> {
  throw new Error('xlsx renderer not built yet');
}

export async function reportToPdf(_report: ReportBody, _options: RenderOptions): Promise<Buffer> {
  throw new Error('pdf renderer not built yet');
}
