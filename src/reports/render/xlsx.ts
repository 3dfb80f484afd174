/**
 * A report as an xlsx workbook (issue 12, "Queue and files"; docs/reports.md, "Files"): a worksheet
 * per sheet, each section a block (its header line, the column titles, the rows; text sections as
 * key/value lines), numbers as numbers in the units `v` shows, times as dates in the report's zone,
 * durations as [h]:mm:ss, the first column-title row frozen, total rows bold, places linked to their
 * coordinates.
 */
import { wallClockMs } from '../../core/time.ts';
import type { Cell, Column, ReportBody, Section, Sheet } from '../model.ts';
import { sheetNumber } from './numbers.ts';
import { zip } from './zip.ts';

const SECONDS_PER_DAY = 86_400;
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
 * The workbook as SpreadsheetML written here, row by row into strings, and zipped (./zip.ts). The
 * writer of exceljs made a cell object, a style object and its key for every cell: 2.2 s of CPU
 * for the xlsx of 7,000 trips, about 10 s for a fleet's month (bench/reports). Widths and the frozen
 * row come from a first pass over each sheet (`measure`).
 */
export async function reportToXlsx(report: ReportBody): Promise<Buffer> {
  const book = new Book(report);
  const names = worksheetNames(report.sheets.map((s) => s.header));
  const sheets = report.sheets.length ? report.sheets.map((sheet, i) => book.sheet(names[i], sheet)) : [book.titleOnly('Report', report.title)];
  return book.file(sheets);
}

/** A cell's look: font, fill, border, number format, alignment (each an index into the tables below). */
interface Look {
  font: Font;
  fill: 0 | 2;
  border: Border;
  numFmt: string | null;
  align: Align;
}
const enum Font {
  Normal,
  Bold,
  Heading,
  Link,
}
const enum Border {
  None,
  Bottom,
  Top,
}
const enum Align {
  None,
  Left,
  WrapTop,
}
const FONTS = [
  '<font><sz val="11"/><name val="Calibri"/><family val="2"/></font>',
  '<font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font>',
  '<font><b/><sz val="13"/><name val="Calibri"/><family val="2"/></font>',
  '<font><u/><sz val="11"/><color rgb="FF1F5FA8"/><name val="Calibri"/><family val="2"/></font>',
];
/** The first two fills are the ones the format reserves; the third shades column titles. */
const FILLS = ['<fill><patternFill patternType="none"/></fill>', '<fill><patternFill patternType="gray125"/></fill>', '<fill><patternFill patternType="solid"><fgColor rgb="FFE8EEF4"/><bgColor indexed="64"/></patternFill></fill>'];
const BORDERS = ['<border><left/><right/><top/><bottom/><diagonal/></border>', '<border><left/><right/><top/><bottom style="thin"/><diagonal/></border>', '<border><left/><right/><top style="thin"/><bottom/><diagonal/></border>'];
const ALIGNMENTS = ['', '<alignment horizontal="left"/>', '<alignment vertical="top" wrapText="1"/>'];
const PLAIN: Look = { font: Font.Normal, fill: 0, border: Border.None, numFmt: null, align: Align.None };

/** XML text: the five escapes, and the control characters XML 1.0 cannot hold left out. */
export function xmlText(s: string): string {
  return s.replace(/[<>&"\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : c === '"' ? '&quot;' : ''));
}

/** Column letters of a 0-based index: 0 A, 25 Z, 26 AA. */
function columnName(i: number): string {
  let s = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** A spreadsheet cell to write: a number or a (shared) string, its look, a link. */
interface Out {
  value: number | string;
  look: Look;
  link?: string;
}

/** The workbook's shared parts: strings, cell formats (styles), and its worksheets' XML. */
class Book {
  private strings = new Map<string, number>();
  private stringList: string[] = [];
  private numFmts = new Map<string, number>();
  private xfs = new Map<string, number>();
  private xfList: string[] = [];
  private readonly write: CellWriter;

  constructor(private report: ReportBody) {
    this.write = new CellWriter(report);
    this.style(PLAIN); // xf 0: the default
  }

  private string(s: string): number {
    let i = this.strings.get(s);
    if (i === undefined) {
      i = this.stringList.length;
      this.strings.set(s, i);
      this.stringList.push(s);
    }
    return i;
  }

  /** The cell format (xf) index of a look. */
  private style(l: Look): number {
    const key = `${l.font}|${l.fill}|${l.border}|${l.align}|${l.numFmt ?? ''}`;
    let i = this.xfs.get(key);
    if (i === undefined) {
      let fmt = 0;
      if (l.numFmt !== null) {
        fmt = this.numFmts.get(l.numFmt) ?? 164 + this.numFmts.size; // custom formats start at 164
        this.numFmts.set(l.numFmt, fmt);
      }
      i = this.xfList.length;
      this.xfs.set(key, i);
      const align = ALIGNMENTS[l.align];
      this.xfList.push(
        `<xf numFmtId="${fmt}" fontId="${l.font}" fillId="${l.fill}" borderId="${l.border}" xfId="0"${fmt ? ' applyNumberFormat="1"' : ''}${l.font ? ' applyFont="1"' : ''}${l.fill ? ' applyFill="1"' : ''}${l.border ? ' applyBorder="1"' : ''}${align ? ` applyAlignment="1">${align}</xf>` : '/>'}`,
      );
    }
    return i;
  }

  /** One worksheet: its XML and its links (each a relationship of the worksheet). */
  sheet(name: string, sheet: Sheet): WorksheetXml {
    const { widths, frozen } = measure(sheet);
    const w = new WorksheetWriter(this, name);
    for (const section of sheet.sections) {
      if (w.line > 0) w.line++; // an empty line between blocks
      w.row([{ value: section.header, look: { ...PLAIN, font: Font.Heading } }], Font.Heading);
      if (section.type === 'text') {
        for (const { k, v } of section.data) w.row([{ value: k, look: { ...PLAIN, font: Font.Bold } }, this.write.cell(v)]);
        continue;
      }
      w.row(section.columns.map((c) => ({ value: c.title, look: { ...PLAIN, font: Font.Bold, fill: 2, border: Border.Bottom } })), Font.Bold);
      for (const r of section.rows) {
        const cells = section.columns.map((c) => (r.data[c.field] ? this.write.cell(r.data[c.field]) : undefined));
        if (r.type !== 'total') w.row(cells);
        // A total line: bold with a rule above, on the cells it fills.
        else w.row(cells.map((c) => c && { ...c, look: { ...c.look, font: Font.Bold, border: Border.Top } }), Font.Bold);
      }
    }
    return w.done(widths, frozen);
  }

  /** A worksheet with one line of text (a report without sheets). */
  titleOnly(name: string, text: string): WorksheetXml {
    const w = new WorksheetWriter(this, name);
    w.row([{ value: text, look: PLAIN }]);
    return w.done([], 0);
  }

  /** `<c>` of a cell at a reference. */
  cellXml(ref: string, c: Out): string {
    const s = this.style(c.look);
    const attr = s ? ` s="${s}"` : '';
    if (typeof c.value === 'number') return `<c r="${ref}"${attr}><v>${c.value}</v></c>`;
    return `<c r="${ref}"${attr} t="s"><v>${this.string(c.value)}</v></c>`;
  }

  /** The row format of a line whose font is set as a whole (headers, totals). */
  rowStyle(font: Font): number {
    return this.style({ ...PLAIN, font });
  }

  /** The whole package: content types, relationships, workbook, styles, strings, worksheets, properties. */
  file(sheets: WorksheetXml[]): Buffer {
    const files: Array<[string, string]> = [];
    const rel = (id: string, type: string, target: string, external = false) =>
      `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/${type}" Target="${xmlText(target)}"${external ? ' TargetMode="External"' : ''}/>`;
    const rels = (list: string[]) => `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${list.join('')}</Relationships>`;
    const main = 'officeDocument/2006/relationships';
    files.push([
      '[Content_Types].xml',
      `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
        `<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
        sheets.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('') +
        `<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>` +
        `<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/><Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/></Types>`,
    ]);
    files.push(['_rels/.rels', rels([rel('rId1', `${main}/officeDocument`, 'xl/workbook.xml'), rel('rId2', 'package/2006/relationships/metadata/core-properties', 'docProps/core.xml'), rel('rId3', `${main}/extended-properties`, 'docProps/app.xml')])]);
    files.push([
      'docProps/core.xml',
      `${XML}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:creator>fsm-platform</dc:creator><dc:title>${xmlText(this.report.title)}</dc:title></cp:coreProperties>`,
    ]);
    files.push(['docProps/app.xml', `${XML}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>fsm-platform</Application></Properties>`]);
    files.push([
      'xl/workbook.xml',
      `${XML}<workbook xmlns="${NS}" xmlns:r="${NS_R}"><bookViews><workbookView/></bookViews><sheets>${sheets.map((s, i) => `<sheet name="${xmlText(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('')}</sheets></workbook>`,
    ]);
    const n = sheets.length;
    files.push(['xl/_rels/workbook.xml.rels', rels([...sheets.map((_, i) => rel(`rId${i + 1}`, `${main}/worksheet`, `worksheets/sheet${i + 1}.xml`)), rel(`rId${n + 1}`, `${main}/styles`, 'styles.xml'), rel(`rId${n + 2}`, `${main}/sharedStrings`, 'sharedStrings.xml')])]);
    // The worksheets before the strings and styles: writing them fills both tables.
    sheets.forEach((s, i) => {
      files.push([`xl/worksheets/sheet${i + 1}.xml`, s.xml]);
      if (s.links.length) files.push([`xl/worksheets/_rels/sheet${i + 1}.xml.rels`, rels(s.links.map((url, k) => rel(`rId${k + 1}`, `${main}/hyperlink`, url, true)))]);
    });
    const strings = this.stringList.map((t) => `<si><t${/^\s|\s$/.test(t) ? ' xml:space="preserve"' : ''}>${xmlText(t)}</t></si>`).join('');
    files.push(['xl/sharedStrings.xml', `${XML}<sst xmlns="${NS}" count="${this.stringList.length}" uniqueCount="${this.stringList.length}">${strings}</sst>`]);
    const numFmts = [...this.numFmts].map(([code, id]) => `<numFmt numFmtId="${id}" formatCode="${xmlText(code)}"/>`).join('');
    files.push([
      'xl/styles.xml',
      `${XML}<styleSheet xmlns="${NS}">${numFmts ? `<numFmts count="${this.numFmts.size}">${numFmts}</numFmts>` : ''}<fonts count="${FONTS.length}">${FONTS.join('')}</fonts><fills count="${FILLS.length}">${FILLS.join('')}</fills><borders count="${BORDERS.length}">${BORDERS.join('')}</borders>` +
        `<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="${this.xfList.length}">${this.xfList.join('')}</cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`,
    ]);
    // Level 3: most of zlib's size for a third of level 6's time on this XML.
    return zip(files.map(([name, text]) => ({ name, data: Buffer.from(text, 'utf8') })), 3);
  }
}

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const NS_R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

interface WorksheetXml {
  name: string;
  xml: string;
  /** The targets of its links, relationship rId<k + 1> each. */
  links: string[];
}

/** One worksheet's rows as XML, line by line. */
class WorksheetWriter {
  /** Lines written so far (the last line's number). */
  line = 0;
  private rows: string[] = [];
  private links: string[] = [];
  private linkRefs: string[] = [];

  constructor(
    private book: Book,
    private name: string,
  ) {}

  /** The next line: its cells from column A (undefined: empty), and the font of the line as a whole. */
  row(cells: Array<Out | undefined>, font?: Font): void {
    const r = ++this.line;
    let xml = font === undefined ? `<row r="${r}">` : `<row r="${r}" s="${this.book.rowStyle(font)}" customFormat="1">`;
    cells.forEach((c, j) => {
      if (!c || c.value === '') return;
      const ref = `${columnName(j)}${r}`;
      xml += this.book.cellXml(ref, c);
      if (c.link !== undefined) {
        this.links.push(c.link);
        this.linkRefs.push(ref);
      }
    });
    this.rows.push(`${xml}</row>`);
  }

  done(widths: number[], frozen: number): WorksheetXml {
    const pane = frozen ? `<pane ySplit="${frozen}" topLeftCell="A${frozen + 1}" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft"/>` : '';
    const cols = widths.length ? `<cols>${widths.map((w, i) => `<col min="${i + 1}" max="${i + 1}" width="${w}" customWidth="1"/>`).join('')}</cols>` : '';
    const links = this.links.length ? `<hyperlinks>${this.linkRefs.map((ref, k) => `<hyperlink ref="${ref}" r:id="rId${k + 1}"/>`).join('')}</hyperlinks>` : '';
    const xml = `${XML}<worksheet xmlns="${NS}" xmlns:r="${NS_R}"><sheetViews><sheetView workbookViewId="0">${pane}</sheetView></sheetViews><sheetFormatPr defaultRowHeight="15"/>${cols}<sheetData>${this.rows.join('')}</sheetData>${links}</worksheet>`;
    return { name: this.name, xml, links: this.links };
  }
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

const longestLine = (s: string) => s.split('\n').reduce((m, l) => Math.max(m, l.length), 0);

/** Report cells as spreadsheet values of their type (CellType in src/reports/model.ts), with their look. */
class CellWriter {
  private readonly tz: string;
  private readonly locale: string;
  private readonly system: ReportBody['locale_info']['measurement_system'];

  constructor(report: ReportBody) {
    this.tz = report.locale_info.time_zone;
    this.locale = report.locale_info.locale;
    this.system = report.locale_info.measurement_system;
  }

  /** The spreadsheet cell of a report cell (an empty `v` without a number: value ''). */
  cell(c: Cell): Out {
    switch (c.type) {
      case 'datetime':
      case 'date': {
        if (c.raw === null) break;
        const numFmt = c.type === 'date' ? 'yyyy-mm-dd' : /\d:\d\d:\d\d/.test(c.v) ? 'yyyy-mm-dd hh:mm:ss' : 'yyyy-mm-dd hh:mm';
        return { value: serialDate(wallClockMs(c.raw * 1000, this.tz)), look: { ...PLAIN, numFmt, align: Align.Left } };
      }
      case 'duration':
        if (c.raw === null) break;
        return { value: c.raw / SECONDS_PER_DAY, look: { ...PLAIN, numFmt: /\d:\d\d:\d\d/.test(c.v) || !/:/.test(c.v) ? '[h]:mm:ss' : '[h]:mm' } };
      case 'location':
        if (!c.location) break;
        return { value: c.v, look: { ...PLAIN, font: Font.Link }, link: geoUri(c.location.lat, c.location.lng) };
      case 'text': {
        // A text with one web link (a file's download URL) links to it.
        const urls = c.v.match(/https?:\/\/[^\s<>"]+/g);
        if (urls?.length !== 1) break;
        return { value: c.v, look: { ...PLAIN, font: Font.Link, align: c.v.includes('\n') ? Align.WrapTop : Align.None }, link: urls[0] };
      }
      default: {
        const n = sheetNumber(c, this.locale, this.system);
        if (!n) break;
        return { value: n.value, look: { ...PLAIN, numFmt: n.format } };
      }
    }
    return { value: c.v, look: c.v.includes('\n') ? { ...PLAIN, align: Align.WrapTop } : PLAIN };
  }
}

/** A spreadsheet date: days since 1899-12-30 of a wall-clock time (ms whose UTC fields are that time). */
const serialDate = (wallMs: number) => wallMs / 86_400_000 + 25_569;

/** Sections with columns (tables and map tables). */
export type TabularSection = Exclude<Section, { type: 'text' }>;
