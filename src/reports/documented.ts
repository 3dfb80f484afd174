/**
 * The report object as report/tracker/retrieve answers it (issue 23; docs/reports.md, "The retrieved
 * report"): the documented shape of the API the spec describes, made from the stored body
 * (./model.ts), which the renderers read. Pure; it runs in the render thread (render/index.ts,
 * format `json`), never on the event loop.
 *
 * - a table is `{type: "table", header, columns, column_groups, data: [{header, rows, total}]}`:
 *   rows are plain `{<field>: cell}` objects, the total row of the stored table is `total`
 *   (`{text, <field>: cell}`; null when the table has none), and the columns carry align, width and
 *   weight;
 * - cells are `{v, raw, type: "value", location?}`: `raw` is in the unit shown (km or mi, km/h or
 *   mph, l or gal), times are epoch milliseconds, durations seconds; `v` of a distance, speed or
 *   volume is the number alone, its unit is in the column title ("Distance,\nkm");
 * - key/value summaries are `map_table` sections (`rows: [{name, v, raw, highlight}]`), and the
 *   track of a sheet's map is that section's `track` (ours; a map_table of its own when the sheet
 *   has no summary).
 */
import { KM_PER_MILE, L_PER_GAL, usableLocale } from './format.ts';
import { word } from './i18n.ts';
import type { Cell, CellType, Column, LocaleInfo, ReportBody, Section, Sheet } from './model.ts';

export interface DocumentedCell {
  v: string;
  raw: number | null;
  type: 'value';
  location?: { lat: number; lng: number };
}

export interface DocumentedColumn {
  field: string;
  title: string;
  align: 'left' | 'right';
  width: number;
  weight: number;
  highlight_min_max: boolean;
}

export interface DocumentedTable {
  type: 'table';
  header: string;
  columns: DocumentedColumn[];
  column_groups: never[];
  data: Array<{ header: string; rows: Array<Record<string, DocumentedCell>>; total: (Record<string, DocumentedCell | string> & { text: string }) | null }>;
}

export interface DocumentedMapTable {
  type: 'map_table';
  header: string;
  rows: Array<{ name: string; v: string; raw: number | null; highlight: boolean }>;
  /** Ours: the track the map draws, [lat, lng] pairs; absent when the sheet has no map. */
  track?: Array<[number, number]>;
}

export type DocumentedSection = DocumentedTable | DocumentedMapTable;

export interface DocumentedSheet {
  header: string;
  entity_ids: number[];
  additional_field: string;
  sections: DocumentedSection[];
}

export type DocumentedReport = Omit<ReportBody, 'sheets'> & { sheets: DocumentedSheet[] };

const RIGHT: ReadonlySet<CellType> = new Set(['number', 'distance', 'speed', 'volume', 'percent', 'duration']);

/** Converts cells to the documented ones in one locale and measurement system. */
class CellView {
  private readonly metric: boolean;
  private readonly system: LocaleInfo['measurement_system'];
  private readonly numbers: Record<'distance' | 'speed' | 'volume', Intl.NumberFormat>;
  readonly units: Record<'distance' | 'speed' | 'volume', string>;

  constructor(info: LocaleInfo) {
    const locale = usableLocale(info.locale);
    this.system = info.measurement_system;
    this.metric = info.measurement_system === 'metric';
    // The digits the stored `v` shows (format.ts): 2 for distances, 0 for speeds, 1 for volumes.
    const digits = (d: number) => new Intl.NumberFormat(locale, { minimumFractionDigits: d, maximumFractionDigits: d });
    this.numbers = { distance: digits(2), speed: digits(0), volume: digits(1) };
    const unit = (u: string) => new Intl.NumberFormat(locale, { style: 'unit', unit: u, unitDisplay: 'short' }).formatToParts(1).find((p) => p.type === 'unit')?.value ?? u;
    this.units = {
      distance: unit(this.metric ? 'kilometer' : 'mile'),
      speed: unit(this.metric ? 'kilometer-per-hour' : 'mile-per-hour'),
      volume: unit(this.metric ? 'liter' : 'gallon'),
    };
  }

  /** The number shown for a stored raw (metres, km/h, litres), in the shown unit. */
  private shown(type: 'distance' | 'speed' | 'volume', raw: number): number {
    if (type === 'distance') return round(raw / (this.metric ? 1000 : KM_PER_MILE * 1000), 3);
    if (type === 'speed') return round(this.metric ? raw : raw / KM_PER_MILE, 1);
    return round(raw / L_PER_GAL[this.system], 2);
  }

  cell(c: Cell): DocumentedCell {
    let v = c.v;
    let raw = c.raw;
    if (raw !== null) {
      if (c.type === 'datetime' || c.type === 'date') raw = raw * 1000;
      else if (c.type === 'distance' || c.type === 'speed' || c.type === 'volume') {
        raw = this.shown(c.type, raw);
        v = this.numbers[c.type].format(raw);
      }
    }
    const out: DocumentedCell = { v, raw, type: 'value' };
    if (c.location) out.location = { lat: c.location.lat, lng: c.location.lng };
    return out;
  }

  /** A title with the unit of its values (", km"), as the documented column titles carry it. */
  titled(title: string, type: CellType | undefined, sep: string): string {
    return type === 'distance' || type === 'speed' || type === 'volume' ? `${title},${sep}${this.units[type]}` : title;
  }
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The stored report as report/tracker/retrieve answers it. */
export function documentedReport(report: ReportBody): DocumentedReport {
  const view = new CellView(report.locale_info);
  const total = word(report.locale_info.locale, 'total');
  return { ...report, sheets: report.sheets.map((s) => documentedSheet(s, view, total)) };
}

function documentedSheet(sheet: Sheet, view: CellView, totalWord: string): DocumentedSheet {
  const sections: DocumentedSection[] = [];
  let track: { header: string; line: Array<[number, number]> } | undefined;
  for (const s of sheet.sections) {
    if (s.type === 'text') {
      sections.push({ type: 'map_table', header: s.header, rows: s.data.map(({ k, v }) => ({ name: view.titled(k, v.type, ' '), ...plain(view.cell(v)), highlight: false })) });
      continue;
    }
    sections.push(documentedTable(s, view, totalWord));
    if (s.type === 'map_table' && !track) track = { header: s.header, line: s.track };
  }
  if (track) {
    // The map goes with the sheet's summary, as the documented map_table is the summary beside the map.
    const summary = sections.find((x): x is DocumentedMapTable => x.type === 'map_table');
    if (summary) summary.track = track.line;
    else sections.push({ type: 'map_table', header: track.header, rows: [], track: track.line });
  }
  return { header: sheet.header, entity_ids: sheet.entity_ids, additional_field: '', sections };
}

const plain = (c: DocumentedCell) => ({ v: c.v, raw: c.raw });

function documentedTable(s: Exclude<Section, { type: 'text' }>, view: CellView, totalWord: string): DocumentedTable {
  // A column's type: its first data cell's (a total row may hold text where data rows hold numbers).
  const types = new Map<string, CellType>();
  for (const r of s.rows) {
    if (r.type !== 'data') continue;
    for (const c of s.columns) if (!types.has(c.field) && r.data[c.field]) types.set(c.field, r.data[c.field].type);
    if (types.size === s.columns.length) break;
  }
  const rows: Array<Record<string, DocumentedCell>> = [];
  let total: DocumentedTable['data'][number]['total'] = null;
  for (const r of s.rows) {
    if (r.type === 'data') {
      const row: Record<string, DocumentedCell> = {};
      for (const [k, c] of Object.entries(r.data)) row[k] = view.cell(c);
      rows.push(row);
      continue;
    }
    // The total row: its text cells (the "Total" label) become `text`, the rest stay cells.
    let text: string | undefined;
    const cells: Record<string, DocumentedCell> = {};
    for (const [k, c] of Object.entries(r.data)) {
      if (c.type === 'text' && text === undefined) text = c.v;
      else cells[k] = view.cell(c);
    }
    total = { text: text ?? totalWord, ...cells };
  }
  return {
    type: 'table',
    header: s.header,
    columns: s.columns.map((c) => documentedColumn(c, types.get(c.field), view)),
    column_groups: [],
    data: [{ header: s.header, rows, total }],
  };
}

function documentedColumn(c: Column, type: CellType | undefined, view: CellView): DocumentedColumn {
  return { field: c.field, title: view.titled(c.title, type, '\n'), align: type && RIGHT.has(type) ? 'right' : 'left', width: c.weight, weight: c.weight, highlight_min_max: false };
}
