/**
 * A report as a PDF (issue 12, "Queue and files"; docs/reports.md, "Files"): a title page and a
 * table of contents unless headless, each sheet a chapter (landscape when a table has many
 * columns), each section a table whose column titles repeat on every page, a map_table's track drawn
 * as a vector path above its table, page numbers in the footer. The fonts are the Roboto files
 * pdfmake ships (Latin with its extensions, Cyrillic, Greek, Vietnamese), read from disk: nothing is
 * fetched, and no other file or URL may be read while a document is built.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import pdfmake from 'pdfmake';
import type { Content, TableCell } from 'pdfmake';
import type { Cell, Column, MapTableSection, ReportBody, Row, Section, Sheet } from '../model.ts';
import { geoUri } from './xlsx.ts';

/** Columns from which a chapter is laid out on landscape pages. */
export const LANDSCAPE_FROM_COLUMNS = 7;
const MARGIN = 40;
const A4 = { width: 595.28, height: 841.89 };
const MAP_HEIGHT = 220;

const FONT_DIR = join(dirname(createRequire(import.meta.url).resolve('pdfmake/package.json')), 'fonts', 'Roboto');
let configured = false;

function configure(): void {
  if (configured) return;
  pdfmake.setFonts({
    Roboto: {
      normal: join(FONT_DIR, 'Roboto-Regular.ttf'),
      bold: join(FONT_DIR, 'Roboto-Medium.ttf'),
      italics: join(FONT_DIR, 'Roboto-Italic.ttf'),
      bolditalics: join(FONT_DIR, 'Roboto-MediumItalic.ttf'),
    },
  });
  // Reports carry user text, never resources: no URL is fetched, only the font files are read.
  pdfmake.setUrlAccessPolicy(() => false);
  pdfmake.setLocalAccessPolicy((path: string) => path.startsWith(FONT_DIR));
  configured = true;
}

/** Right-aligned cell types (numbers and times read best lined up). */
const NUMERIC = new Set(['number', 'distance', 'speed', 'volume', 'percent', 'duration']);

/**
 * Data rows a PDF holds at most, over all its tables (docs/reports.md, "pdf"): pdfmake lays a table
 * out in time that grows with its rows (a month's visits, 33,752 rows, took 501 s), so a longer
 * report's PDF stops each table at the limit with a line saying how many rows are left out and that
 * the xlsx file has them all. Total rows are always kept.
 */
export const PDF_MAX_ROWS = 2000;

/** The rows of a table the PDF shows: data rows while the budget lasts, every total row; and how many are left out. */
function rowsShown(rows: Row[], budget: { left: number }): { rows: Row[]; omitted: number } {
  const shown: Row[] = [];
  let omitted = 0;
  for (const r of rows) {
    if (r.type === 'total') shown.push(r);
    else if (budget.left > 0) {
      budget.left--;
      shown.push(r);
    } else omitted++;
  }
  return { rows: shown, omitted };
}

/** The line under a table the PDF cuts short. */
export const omittedNote = (omitted: number) =>
  `${omitted} more ${omitted === 1 ? 'row is' : 'rows are'} not in this PDF: a PDF holds at most ${PDF_MAX_ROWS} rows of a report. Download the report as xlsx for all of them.`;

const landscape = (sheet: Sheet) => sheet.sections.some((s) => s.type !== 'text' && s.columns.length >= LANDSCAPE_FROM_COLUMNS);

export async function reportToPdf(report: ReportBody, options: { headless: boolean }): Promise<Buffer> {
  configure();
  const content: Content[] = [];
  const budget = { left: PDF_MAX_ROWS };
  if (!options.headless) content.push(...titlePage(report));
  // A report cut short says so before anything else (the title page, or the first page).
  const rows = report.sheets.reduce((n, sh) => n + sh.sections.reduce((m, x) => m + (x.type === 'text' ? 0 : x.rows.filter((r) => r.type !== 'total').length), 0), 0);
  if (rows > PDF_MAX_ROWS) content.splice(options.headless ? 0 : 1, 0, { text: omittedNote(rows - PDF_MAX_ROWS), style: 'note' });
  report.sheets.forEach((sheet, i) => {
    const wide = landscape(sheet);
    const first = options.headless && i === 0;
    content.push({
      text: sheet.header,
      style: 'chapter',
      tocItem: true,
      headlineLevel: 1,
      ...(first ? {} : { pageBreak: 'before' as const, pageOrientation: wide ? ('landscape' as const) : ('portrait' as const) }),
    });
    const width = (wide ? A4.height : A4.width) - 2 * MARGIN;
    for (const section of sheet.sections) content.push(...sectionContent(section, width, budget));
  });
  if (!report.sheets.length) content.push({ text: 'No data for the period', style: 'chapter', ...(options.headless ? {} : { pageBreak: 'before' as const }) });
  const doc: Parameters<typeof pdfmake.createPdf>[0] = {
    pageSize: 'A4',
    pageOrientation: options.headless && report.sheets[0] && landscape(report.sheets[0]) ? 'landscape' : 'portrait',
    pageMargins: [MARGIN, MARGIN, MARGIN, MARGIN],
    info: { title: report.title, creator: 'fsm-platform', producer: 'fsm-platform' },
    defaultStyle: { font: 'Roboto', fontSize: 8.5 },
    styles: {
      title: { fontSize: 24, bold: true, margin: [0, 180, 0, 16] },
      subtitle: { fontSize: 12, color: '#444444', margin: [0, 2, 0, 2] },
      chapter: { fontSize: 16, bold: true, margin: [0, 0, 0, 10] },
      section: { fontSize: 11.5, bold: true, margin: [0, 12, 0, 6] },
      th: { bold: true, fillColor: '#E8EEF4' },
      total: { bold: true, fillColor: '#F3F3F3' },
      note: { italics: true, color: '#8A1F11', margin: [0, 6, 0, 0] },
    },
    footer: (page: number, pages: number) => ({ text: `${page} / ${pages}`, alignment: 'right', fontSize: 8, color: '#666666', margin: [MARGIN, 10, MARGIN, 0] }),
    // A headline is never the last thing on its page.
    pageBreakBefore: (node: { headlineLevel?: unknown }, next: { getFollowingNodesOnPage(): unknown[] }) => Boolean(node.headlineLevel) && next.getFollowingNodesOnPage().length === 0,
    content,
  };
  return pdfmake.createPdf(doc).getBuffer();
}

function titlePage(report: ReportBody): Content[] {
  const { locale, time_zone, measurement_system } = report.locale_info;
  return [
    { text: report.title, style: 'title' },
    { text: `${report.from} — ${report.to}`, style: 'subtitle' },
    ...(report.time_filter ? [{ text: `Time of day ${report.time_filter.from}–${report.time_filter.to}, weekdays ${report.time_filter.weekdays.join(', ')}`, style: 'subtitle' }] : []),
    { text: `Created ${report.created} (${time_zone})`, style: 'subtitle' },
    { text: `Locale ${locale}, ${measurement_system} units`, style: 'subtitle' },
    { toc: { title: { text: 'Contents', style: 'chapter' } }, pageBreak: 'before' },
  ];
}

function sectionContent(section: Section, width: number, budget: { left: number }): Content[] {
  const head: Content = { text: section.header, style: 'section', headlineLevel: 2 };
  if (section.type === 'text') {
    if (!section.data.length) return [head];
    return [
      head,
      {
        table: { widths: ['auto', '*'], body: section.data.map(({ k, v }) => [{ text: k, bold: true }, { ...cellContent(v), alignment: 'left' }]) },
        layout: 'noBorders',
      },
    ];
  }
  const out: Content[] = [head];
  if (section.type === 'map_table' && section.track.length >= 2) out.push(trackCanvas(section, width));
  if (!section.columns.length) return out; // a table of no columns has nothing to show
  const { rows, omitted } = rowsShown(section.rows, budget);
  out.push({
    table: {
      headerRows: 1,
      widths: columnWidths(section.columns),
      body: [
        section.columns.map((c): TableCell => ({ text: c.title, style: 'th' })),
        ...rows.map((r) =>
          section.columns.map((c): TableCell => {
            const cell = r.data[c.field];
            const content = cell ? cellContent(cell) : { text: '' };
            return r.type === 'total' ? { ...content, style: 'total' } : content;
          }),
        ),
      ],
    },
    layout: { hLineWidth: () => 0.5, vLineWidth: () => 0.5, hLineColor: () => '#BBBBBB', vLineColor: () => '#BBBBBB' },
  });
  if (omitted) out.push({ text: omittedNote(omitted), style: 'note' });
  return out;
}

/** Page width shared by the columns' weights. */
function columnWidths(columns: Column[]): string[] {
  const weights = columns.map((c) => (c.weight > 0 ? c.weight : 1));
  const total = weights.reduce((a, b) => a + b, 0) || 1;
  return weights.map((w) => `${((w / total) * 100).toFixed(3)}%`);
}

type Inline = { text: string; link?: string; color?: string };

function cellContent(cell: Cell): { text: string | Inline[]; alignment?: 'right'; link?: string; color?: string } {
  if (cell.type === 'location' && cell.location) return { text: cell.v, link: geoUri(cell.location.lat, cell.location.lng), color: '#1F5FA8' };
  if (NUMERIC.has(cell.type)) return { text: cell.v, alignment: 'right' };
  return { text: linked(cell.v) };
}

const URL_IN_TEXT = /https?:\/\/[^\s<>"]+/g;

/** Text with its http(s) URLs as links (file download links in check-in and form files). */
function linked(v: string): string | Inline[] {
  if (!v.includes('://')) return v;
  const out: Inline[] = [];
  let at = 0;
  for (const m of v.matchAll(URL_IN_TEXT)) {
    if (m.index > at) out.push({ text: v.slice(at, m.index) });
    out.push({ text: m[0], link: m[0], color: '#1F5FA8' });
    at = m.index + m[0].length;
  }
  if (at < v.length) out.push({ text: v.slice(at) });
  return out.length ? out : v;
}

/**
 * The track as a polyline in a box of the page's width, scaled to the track's extent with the
 * aspect of an equirectangular map at its middle latitude (longitude degrees shrink by cos(lat)).
 * Start green, end red.
 */
export function trackCanvas(section: MapTableSection, width: number): Content {
  const pts = section.track.filter(([lat, lng]) => Number.isFinite(lat) && Number.isFinite(lng));
  let minLat = Infinity, maxLat = -Infinity, minLng = Infinity, maxLng = -Infinity;
  for (const [lat, lng] of pts) {
    minLat = Math.min(minLat, lat);
    maxLat = Math.max(maxLat, lat);
    minLng = Math.min(minLng, lng);
    maxLng = Math.max(maxLng, lng);
  }
  const kx = Math.cos((((minLat + maxLat) / 2) * Math.PI) / 180);
  const spanX = Math.max((maxLng - minLng) * kx, 1e-9);
  const spanY = Math.max(maxLat - minLat, 1e-9);
  const pad = 10;
  const scale = Math.min((width - 2 * pad) / spanX, (MAP_HEIGHT - 2 * pad) / spanY);
  const offX = (width - spanX * scale) / 2;
  const offY = (MAP_HEIGHT - spanY * scale) / 2;
  const at = ([lat, lng]: [number, number]) => ({ x: offX + (lng - minLng) * kx * scale, y: offY + (maxLat - lat) * scale });
  const points = pts.map(at);
  const [s, e] = [points[0], points[points.length - 1]];
  return {
    canvas: [
      { type: 'rect', x: 0, y: 0, w: width, h: MAP_HEIGHT, lineWidth: 0.5, lineColor: '#BBBBBB', color: '#F7F9FB' },
      { type: 'polyline', points, lineWidth: 1.5, lineColor: '#1F5FA8' },
      { type: 'ellipse', x: s.x, y: s.y, r1: 3.5, r2: 3.5, color: '#2E9E44' },
      { type: 'ellipse', x: e.x, y: e.y, r1: 3.5, r2: 3.5, color: '#D33A2C' },
    ],
    margin: [0, 0, 0, 8],
  };
}
