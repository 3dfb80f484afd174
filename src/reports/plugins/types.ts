/**
 * What a report plugin is (docs/reports.md): an id of the API the spec describes, a type name, the
 * zod schema of its own members of the `plugin` object, a default title, a longest period if it has
 * one, and `generate`, which reads the store of the thread it runs in and returns the sheets.
 */
import type { z } from 'zod';
import type { Store } from '../../store/index.ts';
import type { Formatter } from '../format.ts';
import type { Sheet } from '../model.ts';
import type { Window } from '../time-filter.ts';

export interface ReportTracker {
  id: number;
  label: string;
  sourceId: number;
}

export interface PluginContext {
  store: Store;
  /** Whose entities the report reads (zones, ...). */
  ownerId: number;
  trackers: ReportTracker[];
  from: number;
  to: number;
  /** The time filter's windows; null without a filter. */
  windows: Window[] | null;
  fmt: Formatter;
  locale: string;
  /** Address of a place ('' when the geocoder knows nothing). */
  address(lat: number, lng: number): Promise<string>;
  /** Share of the work done, 0..1; throws when the report is to stop (server stopping). */
  progress(done: number): void;
}

/** Members every plugin takes besides its own. */
export interface CommonParams {
  show_seconds: boolean;
  /** Leave out tracker sheets without rows. */
  hide_empty_tabs: boolean;
}

export interface ReportPlugin<S extends z.ZodType = z.ZodType> {
  id: number;
  /** The list item's `type`. */
  type: string;
  /** The plugin's own members of `plugin` (unknown members are dropped). */
  params: S;
  /** Longest period, days (211 with max_time_span P<n>D beyond it), if shorter than the tariff's. */
  maxSpanDays?: number;
  /** Ids the parameters name that must be the owner's (217 otherwise), e.g. zone_ids. */
  check?(store: Store, ownerId: number, params: z.infer<S>): void;
  generate(ctx: PluginContext, params: z.infer<S> & CommonParams): Promise<Sheet[]>;
}

export function definePlugin<S extends z.ZodType>(p: ReportPlugin<S>): ReportPlugin<S> {
  return p;
}
