/**
 * The CPU work of every file upload (issue 10, items 7-9): unzip, parse and geometry, as pure
 * functions of plain data. They run in the upload worker (workers/upload.ts, via UploadPool) and
 * answer plain data; a DomainError comes back as data too (an Error loses its code crossing threads).
 */
import { DomainError, type ErrorCode } from '../core/errors.ts';
import type { ZonePoint } from '../store/zones.ts';
import { kmlText, parseKml, type KmlZone, type UploadBytes } from './kml.ts';
import { layerKml } from './map-layer.ts';
import { readPlacesCsv, type CsvRow } from './places-csv.ts';

/** zone/upload: the zones of a KML/KMZ, either as the dry run's JSON list or packed for storing. */
export interface KmlTask {
  kind: 'kml';
  file: UploadBytes;
  defaultRadius: number;
  /** true: answer `preview` (the dry run), false: answer `zones`. */
  preview: boolean;
}

/** place/upload: the rows of a place CSV. */
export interface PlacesCsvTask {
  kind: 'places-csv';
  file: UploadBytes;
}

/** map_layer/upload: the validated KML text of a layer. */
export interface MapLayerTask {
  kind: 'map-layer';
  file: UploadBytes;
}

export type UploadTask = KmlTask | PlacesCsvTask | MapLayerTask;

/**
 * Zones without point objects: 500,000 points as objects would cost the main thread a long pause to
 * receive; as one Float64Array (lat, lng pairs) they cross as a block. A zone's points are
 * pairs [start, start + count) of `coords` and `nodes`.
 */
export interface PackedZones {
  zones: Array<Omit<KmlZone, 'points'> & { start: number; count: number }>;
  coords: Float64Array;
  nodes: Uint8Array;
}

/** `preview`: the dry run's `"list":[...]` answer member as UTF-8 bytes, encoded here so the main thread only copies them. */
export type UploadResult = { preview: Uint8Array } | { packed: PackedZones } | { rows: CsvRow[] } | { kml: string };
export type UploadAnswer = { ok: true; result: UploadResult } | { ok: false; code: ErrorCode; extra: Record<string, unknown>; description: string };

export function runUploadTask(task: UploadTask): UploadAnswer {
  try {
    return { ok: true, result: run(task) };
  } catch (e) {
    if (e instanceof DomainError) return { ok: false, code: e.code, extra: e.extra, description: e.message };
    throw e;
  }
}

function run(task: UploadTask): UploadResult {
  if (task.kind === 'places-csv') return { rows: readPlacesCsv(task.file) };
  if (task.kind === 'map-layer') return { kml: layerKml(task.file) };
  const zones = parseKml(kmlText(task.file), task.defaultRadius);
  return task.preview ? { preview: new TextEncoder().encode(`"list":${JSON.stringify(zones.map(preview))}`) } : { packed: pack(zones) };
}

/** A zone of a KML file as zone/upload's dry run shows it: ready to create, id null, with its points. */
function preview(k: KmlZone): Record<string, unknown> {
  const out: Record<string, unknown> = { id: null, type: k.type, label: k.label, address: '', color: '27A9E3', tags: [] };
  if (k.type !== 'polygon') out.radius = k.radius;
  if (k.center) out.center = k.center;
  if (k.points) out.points = k.points;
  return out;
}

function pack(zones: KmlZone[]): PackedZones {
  const total = zones.reduce((n, z) => n + (z.points?.length ?? 0), 0);
  const coords = new Float64Array(total * 2);
  const nodes = new Uint8Array(total);
  let at = 0;
  const out = zones.map(({ points, ...zone }) => {
    const start = at;
    for (const p of points ?? []) {
      coords[at * 2] = p.lat;
      coords[at * 2 + 1] = p.lng;
      nodes[at++] = p.node ? 1 : 0;
    }
    return { ...zone, start, count: at - start };
  });
  return { zones: out, coords, nodes };
}

/** The points of one packed zone as the store takes them (undefined for a circle). */
export function unpackPoints(packed: PackedZones, start: number, count: number): ZonePoint[] | undefined {
  if (count === 0) return undefined;
  const out: ZonePoint[] = new Array(count);
  for (let i = 0; i < count; i++) out[i] = { lat: packed.coords[(start + i) * 2], lng: packed.coords[(start + i) * 2 + 1], node: packed.nodes[start + i] === 1 };
  return out;
}
