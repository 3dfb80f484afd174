/**
 * Clusters of single reports (track/list cluster_single_reports; docs/telemetry.md): runs of
 * consecutive single reports (nothing else between them, in time order) that lie within the radius
 * of the run's first report become one cluster; a run of one stays a single report.
 */
import { DEFAULT_SETTINGS, type Segment } from '../types.ts';
import { distanceKm } from '../../core/geo.ts';
import { median } from './median.ts';

export interface Cluster {
  type: 'cluster';
  start: number;
  end: number;
  /** The first report's position (where the cluster is anchored; its address). */
  lat: number;
  lng: number;
  /** Median precision of its reports, m, when they have one. */
  precision?: number;
  points: Array<{ lat: number; lng: number }>;
  /** Every report in it is GSM LBS. */
  gsmLbs: boolean;
}

/** Segments in time order -> the same with runs of nearby single reports as clusters. */
export function clusterSingleReports(segments: Segment[], radiusM: number = DEFAULT_SETTINGS.clusterRadiusMeters): Array<Segment | Cluster> {
  const out: Array<Segment | Cluster> = [];
  let run: Segment[] = [];
  const flush = () => {
    if (run.length) out.push(run.length > 1 ? toCluster(run) : run[0]);
    run = [];
  };
  for (const s of segments) {
    if (s.type !== 'single_report') {
      flush();
      out.push(s);
      continue;
    }
    if (run.length && distanceKm(run[0].startLat, run[0].startLng, s.startLat, s.startLng) * 1000 > radiusM) flush();
    run.push(s);
  }
  flush();
  return out;
}

function toCluster(run: Segment[]): Cluster {
  const c: Cluster = {
    type: 'cluster',
    start: run[0].start,
    end: run[run.length - 1].end,
    lat: run[0].startLat,
    lng: run[0].startLng,
    points: run.map((s) => ({ lat: s.startLat, lng: s.startLng })),
    gsmLbs: run.every((s) => s.gsmLbs),
  };
  const precision = median(run.map((s) => s.precision ?? NaN));
  if (precision !== undefined) c.precision = precision;
  return c;
}
