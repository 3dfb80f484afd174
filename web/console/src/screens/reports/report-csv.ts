/**
 * A retrieved report as CSV, made in the browser from report/tracker/retrieve's tables (the API's
 * download offers xlsx, xls and pdf): one block per section, sheets one after another, each block
 * headed by its sheet and section names; values as shown (`v`), quoted where needed, CRLF lines.
 */
import type { ReportObject } from '../../api/types.ts';

const field = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
const line = (cells: string[]) => cells.map(field).join(',');

export function reportCsv(report: ReportObject): string {
  const lines: string[] = [line([report.title, `${report.from} – ${report.to}`])];
  for (const sheet of report.sheets) {
    for (const s of sheet.sections) {
      lines.push('', line([sheet.header, s.header]));
      if (s.type === 'map_table') {
        for (const r of s.rows) lines.push(line([r.name, r.v]));
        continue;
      }
      lines.push(line(s.columns.map((c) => c.title.replace(/\n/g, ' '))));
      for (const group of s.data) {
        for (const row of group.rows) lines.push(line(s.columns.map((c) => row[c.field]?.v ?? '')));
        const total = group.total;
        if (total) lines.push(line(s.columns.map((c, i) => (i === 0 ? total.text : cellText(total[c.field])))));
      }
    }
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}

const cellText = (c: unknown) => (c && typeof c === 'object' && 'v' in c ? String((c as { v: string }).v) : '');
