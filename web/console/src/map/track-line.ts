/** A track as a blue line on a white casing (history, reports): source and layers named `track`. */
import type { GeoJSONSource, Map as MlMap } from 'maplibre-gl';

const EMPTY: GeoJSON.FeatureCollection = { type: 'FeatureCollection', features: [] };

export function addTrackLine(map: MlMap): void {
  map.addSource('track', { type: 'geojson', data: EMPTY });
  map.addLayer({ id: 'track-casing', type: 'line', source: 'track', layout: { 'line-join': 'round', 'line-cap': 'round' }, paint: { 'line-color': '#fff', 'line-width': 6 } });
  map.addLayer({ id: 'track', type: 'line', source: 'track', layout: { 'line-join': 'round', 'line-cap': 'round' }, paint: { 'line-color': '#1d6fd6', 'line-width': 3 } });
}

/** The line through `coordinates` ([lng, lat]); fewer than two points draw nothing. */
export function setTrackLine(map: MlMap, coordinates: [number, number][]): void {
  (map.getSource('track') as GeoJSONSource).setData(coordinates.length > 1 ? { type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates } } : EMPTY);
}
