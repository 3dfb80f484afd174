/**
 * A plain ReportFiles (render/index.ts) over the renderer entry points, on the calling thread: what
 * report/tracker/download uses until the renderers' worker pool is wired in by src/main.ts.
 */
import { reportToPdf, reportToXlsx, type ReportFiles } from './render/index.ts';

export const directReportFiles: ReportFiles = {
  async render(format, report, options) {
    if (format === 'pdf') return { body: await reportToPdf(report, options), contentType: 'application/pdf', extension: 'pdf' };
    if (format === 'xlsx') return { body: await reportToXlsx(report), contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx' };
    throw new Error(`${format} renderer not built yet`);
  },
};
