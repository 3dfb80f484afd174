/**
 * A report as an xlsx workbook (issue 12, "Queue and files"; docs/reports.md, "Files"): a worksheet
 * per sheet, each section a block (its header line, the column titles, the rows; text sections as
 * key/value lines), numbers as numbers in the units `v` shows, times as dates in the report's zone,
 * durations as [h]:mm:ss, the first column-title row frozen, total rows bold, places linked to their
 * coordinates.
 */
import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import { wallClockMs } from '../../core/time.ts';
import type { Cell, Column, ReportBody, Section, Sheet } from '../model.ts';
import { sheetNumber } from './numbers.ts';

const SECONDS_PER_DAY = 86_400;
/** A time shown with seconds (h:mm:ss). */
const SECONDS_SHOWN = /\d:\d\d:\d\d/;
const MIN_WIDTH = 10;
const MAX_WIDTH = 60;

/** Worksheet names: at most 31 characters, none of []:*?/\, not quoted, unique ignoring case. */
export function worksheetNames(headers: string[]): string[] {
  const taken = new Set<string>();
  return headers.map((h, i) => {
    let base = h.replace(/[[\]:*?/\\\u0000-\u001f]/g, ' ').replace(/\s+/g, ' ').replace(/^'+|'+$/g, '').trim();
    if (!base || base.toLowerCase() === 'history') base = `Sheet ${i + 1}`;
    let name = base.slice(0, 31).trim();
    for (let n = 2; taken.has(name.toLowerCase()); n++) {
      const tail = ` (${n})`;
      name = base.slice(0, 31 - tail.length).trimEnd() + tail;
    }
    taken.add(name.toLowerCase());
    return name;
  });
}

/** A `geo:` URI (RFC 5870): opens the coordinates in the reader's map application. */
export const geoUri = (lat: number, lng: number) => `geo:${lat.toFixed(6)},${lng.toFixed(6)}`;

/**
 * Written with exceljs's streaming writer: each row goes into the zip as it is made, so a report of
 * tens of thousands of rows never holds a whole workbook of cell objects at once. Widths and the
 * frozen row must be known before the first row: a first pass over the sheet measures them.
 */
export async function reportToXlsx(report: ReportBody): Promise<Buffer> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    out.on('end', resolve);
    out.on('error', reject);
  });
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: true });
  book.creator = 'fsm-platform';
  book.title = report.title;
  const names = worksheetNames(report.sheets.map((s) => s.header));
  const write = new CellWriter(report);
  report.sheets.forEach((sheet, i) => {
    const { widths, frozen } = measure(sheet);
    // The header of the first table stays in view while scrolling (the lines above it too).
    const ws = book.addWorksheet(names[i], frozen ? { views: [{ state: 'frozen', xSplit: 0, ySplit: frozen }] } : {});
    ws.columns = widths.map((width) => ({ width }));
    let line = 0;
    const add = (values: unknown[] = []) => {
      line++;
      return ws.addRow(values);
    };
    for (const section of sheet.sections) {
      if (line > 0) add().commit();
      const head = add([section.header]);
      head.font = { bold: true, size: 13 };
      head.commit();
      if (section.type === 'text') {
        for (const { k, v } of section.data) {
          const row = add([k]);
          row.getCell(1).font = { bold: true };
          write.cell(row.getCell(2), v);
          row.commit();
        }
        continue;
      }
      const titles = add(section.columns.map((c) => c.title));
      titles.eachCell((c) => {
        c.font = { bold: true };
        c.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE8EEF4' } };
        c.border = { bottom: { style: 'thin' } };
      });
      titles.font = { bold: true };
      titles.commit();
      for (const r of section.rows) {
        const row = add();
        const total = r.type === 'total';
        // The row's own style, set while it has no cells (exceljs would copy it into each cell's
        // style object, and those are shared): cells typed into the row later are bold too.
        if (total) row.font = { bold: true };
        section.columns.forEach((c, j) => {
          const cell = r.data[c.field];
          if (cell) write.cell(row.getCell(j + 1), cell, total);
        });
        row.commit();
      }
    }
    ws.commit();
  });
  if (!report.sheets.length) {
    const ws = book.addWorksheet('Report');
    ws.addRow([report.title]).commit();
    ws.commit();
  }
  await book.commit();
  await done;
  return Buffer.concat(chunks);
}

/** Column widths (index 0 = column A) and the frozen line (the first column-title row; 0: none). */
function measure(sheet: Sheet): { widths: number[]; frozen: number } {
  const widths: number[] = [];
  const fit = (col: number, text: string) => {
    widths[col] = Math.max(widths[col] ?? MIN_WIDTH, Math.min(MAX_WIDTH, longestLine(text) + 2));
  };
  let line = 0;
  let frozen = 0;
  for (const section of sheet.sections) {
    line += line > 0 ? 2 : 1; // the empty line between blocks, the section header
    if (section.type === 'text') {
      for (const { k, v } of section.data) {
        fit(0, k);
        fit(1, v.v);
      }
      line += section.data.length;
      continue;
    }
    line++;
    if (!frozen) frozen = line;
    section.columns.forEach((c, j) => fit(j, c.title));
    weightWidths(section.columns).forEach((w, j) => (widths[j] = Math.max(widths[j] ?? MIN_WIDTH, w)));
    for (const r of section.rows) section.columns.forEach((c, j) => r.data[c.field] && fit(j, r.data[c.field].v));
    line += section.rows.length;
  }
  return { widths: Array.from(widths, (w) => w ?? MIN_WIDTH), frozen };
}

/** Widths from the columns' weights: a table of weight-1 columns gets 14 characters a column. */
function weightWidths(columns: Column[]): number[] {
  const total = columns.reduce((s, c) => s + (c.weight > 0 ? c.weight : 1), 0) || 1;
  const perWeight = (14 * columns.length) / total;
  return columns.map((c) => Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, Math.round((c.weight > 0 ? c.weight : 1) * perWeight))));
}

const longestLine = (s: string) => (s.includes('\n') ? s.split('\n').reduce((m, l) => Math.max(m, l.length), 0) : s.length);

/** Writes report cells as spreadsheet values of their type (CellType in src/reports/model.ts). */
class CellWriter {
  private readonly tz: string;
  private readonly locale: string;
  private readonly system: ReportBody['locale_info']['measurement_system'];

  constructor(report: ReportBody) {
    this.tz = report.locale_info.time_zone;
    this.locale = report.locale_info.locale;
    this.system = report.locale_info.measurement_system;
  }

  /**
   * One style object per distinct look, shared by every cell that has it: exceljs keeps a style's
   * index by the object's identity, so a shared one is looked up once, where a style set member by
   * member (`cell.numFmt = ...`) made and serialized a new object for every cell.
   */
  private readonly styles = new Map<string, Partial<ExcelJS.Style>>();
  style(key: string, make: () => Partial<ExcelJS.Style>): Partial<ExcelJS.Style> {
    let st = this.styles.get(key);
    if (!st) this.styles.set(key, (st = make()));
    return st;
  }

  /**
   * The shared style of a look. A method rather than a closure made per cell: the server runs
   * through tsx, whose keepNames wraps every closure made (a call per closure per cell; bench/reports).
   */
  private look(numFmt: string | undefined, extra: 'link' | 'wrap' | 'left' | '', bold: boolean): Partial<ExcelJS.Style> {
    const key = `${numFmt ?? ''}|${extra}|${bold}`;
    let st = this.styles.get(key);
    if (!st) {
      st = {
        ...(numFmt ? { numFmt } : {}),
        ...(extra === 'link' ? { font: { color: { argb: 'FF1F5FA8' }, underline: true, ...(bold ? { bold: true } : {}) } } : bold ? { font: { bold: true } } : {}),
        ...(extra === 'wrap' ? { alignment: { wrapText: true, vertical: 'top' } } : extra === 'left' ? { alignment: { horizontal: 'left' } } : {}),
        ...(bold ? { border: { top: { style: 'thin' } } } : {}),
      };
      this.styles.set(key, st);
    }
    return st;
  }

  /** Writes `c` into `target`; `bold` for total rows (bold, a line above). */
  cell(target: ExcelJS.Cell, c: Cell, bold = false): void {
    switch (c.type) {
      case 'datetime':
      case 'date':
        if (c.raw === null) break;
        // A spreadsheet date has no zone: a Date whose UTC fields are the wall time in the report's zone.
        target.value = new Date(wallClockMs(c.raw * 1000, this.tz));
        target.style = this.look(c.type === 'date' ? 'yyyy-mm-dd' : SECONDS_SHOWN.test(c.v) ? 'yyyy-mm-dd hh:mm:ss' : 'yyyy-mm-dd hh:mm', 'left', bold);
        return;
      case 'duration':
        if (c.raw === null) break;
        target.value = c.raw / SECONDS_PER_DAY;
        target.style = this.look(SECONDS_SHOWN.test(c.v) || !c.v.includes(':') ? '[h]:mm:ss' : '[h]:mm', '', bold);
        return;
      case 'location':
        if (!c.location) break;
        target.value = { text: c.v, hyperlink: geoUri(c.location.lat, c.location.lng) };
        target.style = this.look(undefined, 'link', bold);
        return;
      case 'text': {
        // A text with one web link (a file's download URL) links to it.
        const urls = c.v.match(/https?:\/\/[^\s<>"]+/g);
        if (urls?.length !== 1) break;
        target.value = { text: c.v, hyperlink: urls[0] };
        target.style = c.v.includes('\n') ? this.style(`|linkwrap|${bold}`, () => ({ ...this.look(undefined, 'link', bold), alignment: { wrapText: true, vertical: 'top' } })) : this.look(undefined, 'link', bold);
        return;
      }
      default: {
        const n = sheetNumber(c, this.locale, this.system);
        if (!n) break;
        target.value = n.value;
        target.style = this.look(n.format, '', bold);
        return;
      }
    }
    if (c.v !== '') target.value = c.v; // else an empty cell, not an empty string
    target.style = this.look(undefined, c.v.includes('\n') ? 'wrap' : '', bold);
  }
}

/** Sections with columns (tables and map tables). */
export type TabularSection = Exclude<Section, { type: 'text' }>;
