/**
 * A report as CSV (docs/reports.md, "Files"): UTF-8 with a byte order mark (so spreadsheet
 * applications read it as UTF-8), comma-separated, CRLF lines. A CSV file has one table, so the
 * sheets follow each other: the sheet's header on a line of its own, then each section as a block
 * (its header, the column titles, the rows; text sections as key/value lines), blocks separated by
 * an empty line. Cells are the displayed text `v`: what a person reads in the report.
 * Text that would start a formula is defused (`defuse`).
 */
import { stringify } from 'csv-stringify/sync';
import type { ReportBody } from '../model.ts';

const BOM = '\ufeff';

/**
 * Text that a spreadsheet would run as a formula (=, +, @, a tab or CR first, or - not before a
 * digit) gets a leading apostrophe: user text (form values, comments) must not become a formula.
 */
export const defuse = (s: string) => (/^[=+@\t\r]|^-(?!\d[\d.,]*(\s|$))/.test(s) ? `'${s}` : s);

export function reportToCsv(report: ReportBody): Buffer {
  const lines: string[][] = [];
  for (const sheet of report.sheets) {
    if (lines.length) lines.push([]);
    lines.push([defuse(sheet.header)]);
    for (const section of sheet.sections) {
      lines.push([], [defuse(section.header)]);
      if (section.type === 'text') {
        for (const { k, v } of section.data) lines.push([defuse(k), defuse(v.v)]);
        continue;
      }
      lines.push(section.columns.map((c) => defuse(c.title)));
      for (const r of section.rows) lines.push(section.columns.map((c) => defuse(r.data[c.field]?.v ?? '')));
    }
  }
  return Buffer.from(BOM + stringify(lines, { record_delimiter: 'windows' }), 'utf8');
}
