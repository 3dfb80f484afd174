/**
 * Zones and places on the map, and the shape being drawn: circles and polygons as filled areas,
 * sausages as lines as wide as the zone (metres, at every zoom), the draft's points as handles that
 * can be dragged. Names are HTML labels (map/html-labels.ts).
 */
import type { GeoJSONSource, Map as MlMap } from 'maplibre-gl';
import type { LatLng, Place, Zone } from '../../api/types.ts';
import { circle, metresWide } from '../../map/geometry.ts';
import type { LabelCandidate } from '../../map/html-labels.ts';

/** What the form edits: a zone (new when `id` is absent) or a place. */
export type Draft =
  | { kind: 'zone'; id?: number; type: Zone['type']; label: string; color: string; radius: number; center: LatLng | null; points: LatLng[]; pointsChanged: boolean; address: string; tags: number[] }
  | { kind: 'place'; id?: number; label: string; description: string; center: LatLng | null; radius: number; address: string; external_id: string | null; tags: number[] };

const EMPTY: GeoJSON.FeatureCollection = { type: 'FeatureCollection', features: [] };
const color = ['concat', '#', ['get', 'color']] as never;

export function addZoneLayers(map: MlMap): void {
  for (const id of ['user-zones', 'user-places', 'draft', 'draft-points']) map.addSource(id, { type: 'geojson', data: EMPTY });
  const polygons = ['==', ['geometry-type'], 'Polygon'] as never;
  const lines = ['==', ['geometry-type'], 'LineString'] as never;
  map.addLayer({ id: 'user-zone-fill', type: 'fill', source: 'user-zones', filter: polygons, paint: { 'fill-color': color, 'fill-opacity': ['case', ['get', 'selected'], 0.12, 0.25] } });
  map.addLayer({ id: 'user-zone-sausage', type: 'line', source: 'user-zones', filter: lines, layout: { 'line-cap': 'round', 'line-join': 'round' }, paint: { 'line-color': color, 'line-opacity': 0.3, 'line-width': metresWide('width') as never } });
  map.addLayer({ id: 'user-zone-outline', type: 'line', source: 'user-zones', paint: { 'line-color': color, 'line-width': ['case', ['get', 'selected'], 3, 1.5] } });
  map.addLayer({ id: 'user-place-fill', type: 'fill', source: 'user-places', filter: polygons, paint: { 'fill-color': '#8250df', 'fill-opacity': 0.15 } });
  map.addLayer({ id: 'user-place-outline', type: 'line', source: 'user-places', filter: polygons, paint: { 'line-color': '#8250df', 'line-width': ['case', ['get', 'selected'], 3, 1.5] } });
  map.addLayer({ id: 'user-place-center', type: 'circle', source: 'user-places', filter: ['==', ['geometry-type'], 'Point'] as never, paint: { 'circle-radius': 5, 'circle-color': '#8250df', 'circle-stroke-color': '#fff', 'circle-stroke-width': 2 } });
  map.addLayer({ id: 'draft-fill', type: 'fill', source: 'draft', filter: polygons, paint: { 'fill-color': color, 'fill-opacity': 0.2 } });
  map.addLayer({ id: 'draft-sausage', type: 'line', source: 'draft', filter: lines, layout: { 'line-cap': 'round', 'line-join': 'round' }, paint: { 'line-color': color, 'line-opacity': 0.25, 'line-width': metresWide('width') as never } });
  map.addLayer({ id: 'draft-line', type: 'line', source: 'draft', paint: { 'line-color': color, 'line-width': 2, 'line-dasharray': [2, 1] } });
  map.addLayer({ id: 'draft-points', type: 'circle', source: 'draft-points', paint: { 'circle-radius': 7, 'circle-color': '#fff', 'circle-stroke-color': color, 'circle-stroke-width': 3 } });
}

const pt = (p: LatLng): [number, number] => [p.lng, p.lat];
const feature = (geometry: GeoJSON.Geometry, properties: Record<string, unknown>): GeoJSON.Feature => ({ type: 'Feature', geometry, properties });

/** A zone's shape: circle and polygon as areas, sausage as its centre line (drawn `width` metres wide). */
function shape(type: Zone['type'], center: LatLng | null, radius: number, points: LatLng[]): GeoJSON.Geometry | null {
  if (type === 'circle') return center && radius > 0 ? circle(center.lat, center.lng, radius) : null;
  if (type === 'sausage') return points.length >= 2 ? { type: 'LineString', coordinates: points.map(pt) } : null;
  if (points.length >= 3) return { type: 'Polygon', coordinates: [[...points.map(pt), pt(points[0])]] };
  return points.length === 2 ? { type: 'LineString', coordinates: points.map(pt) } : null;
}

/** The saved zones; polygon and sausage points come from zone/point/list (`points` by zone id). */
export function showZones(map: MlMap, zones: Zone[], points: Map<number, LatLng[]>, hidden: number | null, selected: number | null): void {
  const features = zones.flatMap((z) => {
    const g = z.id === hidden ? null : shape(z.type, z.center ?? null, z.radius ?? 0, points.get(z.id) ?? []);
    const lat = z.center?.lat ?? points.get(z.id)?.[0]?.lat ?? 0;
    return g ? [feature(g, { id: z.id, color: z.color, width: 2 * (z.radius ?? 0), lat, selected: z.id === selected })] : [];
  });
  (map.getSource('user-zones') as GeoJSONSource).setData({ type: 'FeatureCollection', features });
}

export function showPlaces(map: MlMap, places: Place[], hidden: number | null, selected: number | null): void {
  const features = places
    .filter((p) => p.id !== hidden)
    .flatMap((p) => {
      const props = { id: p.id, selected: p.id === selected };
      return [feature(circle(p.location.lat, p.location.lng, p.location.radius), props), feature({ type: 'Point', coordinates: pt(p.location) }, props)];
    });
  (map.getSource('user-places') as GeoJSONSource).setData({ type: 'FeatureCollection', features });
}

/** The shape being drawn and its handles (`index` of the point; -1 for a circle's or place's centre). */
export function showDraft(map: MlMap, draft: Draft | null): void {
  let features: GeoJSON.Feature[] = [];
  let handles: GeoJSON.Feature[] = [];
  if (draft) {
    const zoneColor = draft.kind === 'zone' ? draft.color : '8250DF';
    const type = draft.kind === 'zone' ? draft.type : 'circle';
    const points = draft.kind === 'zone' ? draft.points : [];
    const g = shape(type, draft.center, draft.radius, points);
    const lat = draft.center?.lat ?? points[0]?.lat ?? 0;
    if (g) features = [feature(g, { color: zoneColor, width: 2 * draft.radius, lat })];
    handles = type === 'circle' ? (draft.center ? [feature({ type: 'Point', coordinates: pt(draft.center) }, { index: -1, color: zoneColor })] : []) : points.map((p, index) => feature({ type: 'Point', coordinates: pt(p) }, { index, color: zoneColor }));
  }
  (map.getSource('draft') as GeoJSONSource).setData({ type: 'FeatureCollection', features });
  (map.getSource('draft-points') as GeoJSONSource).setData({ type: 'FeatureCollection', features: handles });
}

/** Names of the zones and places in view, at a circle's centre, a polygon's or sausage's first point. */
export function zoneLabels(zones: Zone[], points: Map<number, LatLng[]>, places: Place[]): LabelCandidate[] {
  const out: LabelCandidate[] = [];
  for (const z of zones) {
    const at = z.center ?? points.get(z.id)?.[0];
    if (at) out.push({ key: `zone:${z.id}`, lngLat: pt(at), text: z.label, priority: 3, className: 'label-task', offsetX: z.type === 'circle' ? 0 : 9 });
  }
  for (const p of places) out.push({ key: `place:${p.id}`, lngLat: pt(p.location), text: p.label, priority: 3, className: 'label-task', offsetX: 9 });
  return out;
}

/** The box around everything given, for framing the map; null when there is nothing. */
export function boundsOf(zones: Zone[], places: Place[]): [number, number, number, number] | null {
  const lats: number[] = [];
  const lngs: number[] = [];
  for (const z of zones) if (z.bounds) lats.push(z.bounds.nw.lat, z.bounds.se.lat), lngs.push(z.bounds.nw.lng, z.bounds.se.lng);
  for (const p of places) lats.push(p.location.lat), lngs.push(p.location.lng);
  return lats.length ? [Math.min(...lngs), Math.min(...lats), Math.max(...lngs), Math.max(...lats)] : null;
}
