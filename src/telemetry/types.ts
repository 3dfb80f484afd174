/**
 * The telemetry core's contract (issue 5). Processing is a pipeline of pure stages over one
 * tracker's points in time order: (state, points, settings, context) -> (state', outputs).
 * It runs in a Piscina worker; state goes in and comes out with every batch (JSON-serialisable),
 * and a batch can be re-run from a checkpoint to reprocess late data. See docs/telemetry.md.
 * The shapes themselves live on the ground floor (src/core/telemetry.ts), shared with the store.
 */
export { DEFAULT_SETTINGS } from '../core/telemetry.ts';
export type { Counters, DropReason, GeoKind, Point, Segment, TrackerEvent, TrackerSettings, Visit } from '../core/telemetry.ts';
