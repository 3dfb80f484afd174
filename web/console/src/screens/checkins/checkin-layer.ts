/** Check-ins on the map: a dot per check-in (the opened one larger), who made it as an HTML label. */
import type { GeoJSONSource, Map as MlMap } from 'maplibre-gl';
import type { Checkin } from '../../api/types.ts';
import type { LabelCandidate } from '../../map/html-labels.ts';

export function addCheckinLayers(map: MlMap): void {
  map.addSource('checkins', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
  map.addLayer({
    id: 'checkins',
    type: 'circle',
    source: 'checkins',
    paint: {
      'circle-radius': ['case', ['get', 'selected'], 9, 6],
      'circle-color': ['case', ['get', 'selected'], '#cf222e', '#8250df'],
      'circle-stroke-color': '#fff',
      'circle-stroke-width': 2,
    },
  });
}

export function showCheckins(map: MlMap, checkins: Checkin[], selected: number | null, who: (c: Checkin) => string): void {
  (map.getSource('checkins') as GeoJSONSource).setData({
    type: 'FeatureCollection',
    features: checkins.map((c) => ({ type: 'Feature', properties: { id: c.id, label: `${who(c)}, ${c.marker_time.slice(11, 16)}`, selected: c.id === selected }, geometry: { type: 'Point', coordinates: [c.location.lng, c.location.lat] } })),
  });
}

export function checkinLabels(map: MlMap): LabelCandidate[] {
  if (!map.getLayer('checkins')) return [];
  return map.queryRenderedFeatures({ layers: ['checkins'] }).map((f) => ({
    key: `checkin:${f.properties.id}`,
    lngLat: (f.geometry as GeoJSON.Point).coordinates as [number, number],
    text: String(f.properties.label),
    priority: f.properties.selected ? 4 : 2,
    className: 'label-task',
    offsetX: 11,
  }));
}
