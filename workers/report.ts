/**
 * A report worker: generates one report through its own store connection (src/reports/generate.ts)
 * and answers how it ended; the body never crosses back to the main thread.
 */
import { runReport, type ReportOutcome, type ReportTask } from '../src/reports/generate.ts';

export default function reportTask(task: ReportTask): Promise<ReportOutcome> {
  return runReport(task);
}
