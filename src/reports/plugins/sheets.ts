/** Pieces the plugins share: columns, row numbering, totals, and the track line of a map table. */
import { simplifyLine } from '../../tracks/simplify.ts';
import type { PointColumns } from '../../core/point.ts';
import type { Cell, Column, Row } from '../model.ts';
import { word, type Word } from '../i18n.ts';
import type { PluginContext } from './types.ts';

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
