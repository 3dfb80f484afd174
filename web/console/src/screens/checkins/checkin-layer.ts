/** Check-ins on the map: a dot per check-in (the opened one larger), who made it as an HTML label. */
import type { GeoJSONSource, Map as MlMap } from 'maplibre-gl';
import type { Checkin } from '../../api/types.ts';
import { pointLabels, type LabelCandidate } from '../../map/html-labels.ts';

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

export const checkinLabels = (map: MlMap): LabelCandidate[] => pointLabels(map, 'checkins', 'label-task', 11);
