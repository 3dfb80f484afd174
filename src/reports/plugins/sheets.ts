/** Pieces the plugins share: columns, row numbering, totals, the track line of a map table, and the sheets of list plugins. */
import { simplifyLine } from '../../tracks/simplify.ts';
import type { PointColumns } from '../../core/point.ts';
import type { Cell, Column, Row, Sheet, TextSection } from '../model.ts';
import { word, type Word } from '../i18n.ts';
import type { PluginContext, ReportTracker } from './types.ts';

/** Most points of a map table's track line. */
export const TRACK_POINTS = 2000;

/** Columns from [field, word, weight] triples, titled in the report's locale. */
export function columns(locale: string, spec: Array<[string, Word | string, number]>): Column[] {
  return spec.map(([field, title, weight]) => ({ field, title: isWord(title) ? word(locale, title) : title, weight }));
}

const isWord = (s: string): s is Word => word('en', s as Word) !== undefined;

export const dataRow = (data: Record<string, Cell>): Row => ({ type: 'data', data });
export const totalRow = (data: Record<string, Cell>): Row => ({ type: 'total', data });

/** The points at these indices of the columns, simplified to TRACK_POINTS. */
export function trackLine(cols: PointColumns, idx: number[]): Array<[number, number]> {
  const lat = Float64Array.from(idx, (i) => cols.lat[i]);
  const lng = Float64Array.from(idx, (i) => cols.lng[i]);
  const kept = lat.length > TRACK_POINTS ? simplifyLine(lat, lng, TRACK_POINTS) : Int32Array.from(lat.keys());
  return Array.from(kept, (k) => [lat[k], lng[k]] as [number, number]);
}

/** Indices of the points (GNSS) inside any of the spans, in time order. */
export function pointsIn(cols: PointColumns, spans: Array<[number, number]>): number[] {
  const out: number[] = [];
  let k = 0;
  for (let i = 0; i < cols.n && k < spans.length; i++) {
    const t = cols.time[i];
    while (k < spans.length && t > spans[k][1]) k++;
    if (k < spans.length && t >= spans[k][0]) out.push(i);
  }
  return out;
}

/** Progress after tracker `i` of the report's trackers. */
export const trackerDone = (ctx: PluginContext, i: number) => ctx.progress((i + 1) / ctx.trackers.length);

/** What a list plugin (check-ins, tasks) says of its rows; listSheets builds the sheets around them. */
export interface ListSpec {
  /** The table's header, the summary's count line and the summary sheet's count column. */
  noun: Word;
  columns: Column[];
  /** A tracker's rows, and summary lines after the count (e.g. a count per status). */
  rowsOf(tracker: ReportTracker): Promise<{ rows: Row[]; lines?: TextSection['data'] }>;
}

/**
 * A sheet per tracker (a table of its rows and a count), none for a tracker without rows under
 * `hide_empty_tabs`, and a summary sheet first with a count per tracker when there are several.
 */
export async function listSheets(ctx: PluginContext, hideEmpty: boolean, spec: ListSpec): Promise<Sheet[]> {
  const { fmt, locale } = ctx;
  const sheets: Sheet[] = [];
  const counts: Array<[string, number]> = [];
  for (const [i, tracker] of ctx.trackers.entries()) {
    const { rows, lines = [] } = await spec.rowsOf(tracker);
    counts.push([tracker.label, rows.length]);
    await trackerDone(ctx, i);
    if (!rows.length && hideEmpty) continue;
    sheets.push({
      header: tracker.label,
      entity_ids: [tracker.id],
      sections: [
        { type: 'table', header: word(locale, spec.noun), columns: spec.columns, rows },
        { type: 'text', header: word(locale, 'summary'), data: [{ k: word(locale, spec.noun), v: fmt.number(rows.length) }, ...lines] },
      ],
    });
  }
  if (ctx.trackers.length > 1) {
    const rows = counts.map(([label, n]) => dataRow({ tracker: fmt.text(label), count: fmt.number(n) }));
    rows.push(totalRow({ tracker: fmt.text(word(locale, 'total')), count: fmt.number(counts.reduce((a, [, n]) => a + n, 0)) }));
    sheets.unshift({ header: word(locale, 'summary'), entity_ids: [], sections: [{ type: 'table', header: word(locale, 'summary'), columns: columns(locale, [['tracker', 'tracker', 4], ['count', spec.noun, 1]]), rows }] });
  }
  return sheets;
}
