/**
 * What a report plugin is (docs/reports.md): an id of the API the spec describes, a type name, the
 * zod schema of its own members of the `plugin` object, a default title, a longest period if it has
 * one, and `generate`, which reads the store of the thread it runs in and returns the sheets.
 */
import type { z } from 'zod';
import type { DataStore } from '../../store/contract.ts';
import type { Store } from '../../store/index.ts';
import type { ReportDataStore } from '../../store/reports.ts';
import type { Formatter } from '../format.ts';
import type { Sheet } from '../model.ts';
import type { Window } from '../time-filter.ts';

export interface ReportTracker {
  id: number;
  label: string;
  sourceId: number;
}

export interface PluginContext {
  /** The store of the report's thread (the asynchronous contract): every read but the fix iterators. */
  data: DataStore;
  /**
   * The lazy fix iterators of a long range (`steps`, `fuelFixes`): they stay on the engine's read
   * path (docs/store.md) and are not part of the contract.
   */
  store: { reportData: Pick<ReportDataStore, 'steps' | 'fuelFixes'> };
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
  /** Share of the work done, 0..1, written to the report's row; rejects when the report is to stop (server stopping). */
  progress(done: number): Promise<void>;
}

/** Members every plugin takes besides its own. */
export interface CommonParams {
  show_seconds: boolean;
  /** Leave out tracker sheets without rows. */
  hide_empty_tabs: boolean;
}

/** One tracker's part of a report: its sheet (null: left out, `hide_empty_tabs`) and its totals for the summary. */
export interface TrackerPart<T> {
  sheet: Sheet | null;
  totals: T;
}

/**
 * A report whose trackers are independent (issue 12, "Speed"): a sheet per tracker and a summary sheet
 * over their totals. Its trackers can be generated in several report threads at once and merged in
 * tracker order (src/reports/generate.ts); `generate` runs them one after another. Totals cross
 * threads: plain data.
 */
export interface PerTracker<P, T> {
  tracker(ctx: PluginContext, tracker: ReportTracker, params: P): Promise<TrackerPart<T>>;
  /** The summary sheet, put first when the report has several trackers. */
  summary(ctx: PluginContext, totals: T[], params: P): Sheet;
}

export interface ReportPlugin<S extends z.ZodType = z.ZodType> {
  id: number;
  /** The list item's `type`. */
  type: string;
  /** The plugin's own members of `plugin` (unknown members are dropped). */
  params: S;
  /** Longest period, days (211 with max_time_span P<n>D beyond it), if shorter than the tariff's. */
  maxSpanDays?: number;
  /**
   * Ids the parameters name that must be the owner's (217 otherwise), e.g. zone_ids. Synchronous
   * (the synchronous store) while its callers in src/api/report.ts and src/api/report-schedule.ts are.
   */
  check?(store: Store, ownerId: number, params: z.infer<S>): void;
  generate(ctx: PluginContext, params: z.infer<S> & CommonParams): Promise<Sheet[]>;
  /** Set when the trackers are independent: what `generate` runs, a tracker at a time. */
  perTracker?: PerTracker<z.infer<S> & CommonParams, unknown>;
}

export function definePlugin<S extends z.ZodType>(p: ReportPlugin<S>): ReportPlugin<S> {
  return p;
}

/** A plugin of independent trackers: `generate` runs `perTracker` over the trackers in order. */
export function definePerTrackerPlugin<S extends z.ZodType, T>(p: Omit<ReportPlugin<S>, 'generate' | 'perTracker'> & { perTracker: PerTracker<z.infer<S> & CommonParams, T> }): ReportPlugin<S> {
  const parts = p.perTracker;
  return {
    ...p,
    perTracker: parts as PerTracker<z.infer<S> & CommonParams, unknown>,
    async generate(ctx, params) {
      const done: Array<TrackerPart<T>> = [];
      for (const [i, tracker] of ctx.trackers.entries()) {
        done.push(await parts.tracker(ctx, tracker, params));
        await ctx.progress((i + 1) / ctx.trackers.length);
      }
      return withSummary(ctx, parts, params, done);
    },
  };
}

/** The trackers' sheets in order, led by the summary sheet when there are several trackers. */
export function withSummary<P, T>(ctx: PluginContext, parts: PerTracker<P, T>, params: P, done: Array<TrackerPart<T>>): Sheet[] {
  const sheets = done.flatMap((d) => (d.sheet ? [d.sheet] : []));
  if (done.length > 1) sheets.unshift(parts.summary(ctx, done.map((d) => d.totals), params));
  return sheets;
}
