/**
 * Trackers on the map: one GeoJSON source clustered by MapLibre (clusters when zoomed out, their
 * counts as HTML labels), points coloured by connection state, the selected tracker ringed.
 * A click on a cluster zooms into it; trackers that stay together at the deepest zoom (the same
 * spot) spread apart around it as buttons (`spreadAt`).
 */
import * as maplibregl from 'maplibre-gl';
import type { GeoJSONSource, Map as MlMap, MapGeoJSONFeature } from 'maplibre-gl';
import type { SourceState, Tracker } from '../../api/types.ts';
import { t } from '../../i18n/i18n.ts';
import type { LabelCandidate } from '../../map/html-labels.ts';
import { STATUS_COLORS, statusOf } from './status.ts';

export const CLUSTER_MAX_ZOOM = 14;

export function trackerFeatures(trackers: Tracker[], states: ReadonlyMap<number, SourceState>, selected: number | null): GeoJSON.FeatureCollection {
  const features: GeoJSON.Feature[] = [];
  for (const tr of trackers) {
    const s = states.get(tr.id);
    const loc = s?.gps.location;
    if (!loc) continue;
    features.push({ type: 'Feature', id: tr.id, properties: { id: tr.id, label: tr.label, status: statusOf(s), selected: tr.id === selected, heading: s!.gps.heading }, geometry: { type: 'Point', coordinates: [loc.lng, loc.lat] } });
  }
  return { type: 'FeatureCollection', features };
}

export function addTrackerLayers(map: MlMap): void {
  map.addSource('trackers', { type: 'geojson', data: { type: 'FeatureCollection', features: [] }, cluster: true, clusterMaxZoom: CLUSTER_MAX_ZOOM, clusterRadius: 45 });
  map.addLayer({ id: 'clusters', type: 'circle', source: 'trackers', filter: ['has', 'point_count'], paint: { 'circle-color': '#1d6fd6', 'circle-opacity': 0.85, 'circle-stroke-color': '#fff', 'circle-stroke-width': 2, 'circle-radius': ['step', ['get', 'point_count'], 14, 10, 18, 100, 22, 1000, 28] } });
  const color: maplibregl.ExpressionSpecification = ['match', ['get', 'status'], ...Object.entries(STATUS_COLORS).flat(), '#6e7781'] as never;
  map.addLayer({ id: 'tracker-selected', type: 'circle', source: 'trackers', filter: ['all', ['!', ['has', 'point_count']], ['==', ['get', 'selected'], true]], paint: { 'circle-radius': 14, 'circle-color': 'rgba(29,111,214,0.25)', 'circle-stroke-color': '#1d6fd6', 'circle-stroke-width': 2 } });
  map.addLayer({ id: 'trackers', type: 'circle', source: 'trackers', filter: ['!', ['has', 'point_count']], paint: { 'circle-radius': 7, 'circle-color': color, 'circle-stroke-color': '#fff', 'circle-stroke-width': 2 } });
  for (const layer of ['clusters', 'trackers']) {
    map.on('mouseenter', layer, () => (map.getCanvas().style.cursor = 'pointer'));
    map.on('mouseleave', layer, () => (map.getCanvas().style.cursor = ''));
  }
}

/** Cluster counts and, zoomed in, tracker names, for the map's HTML labels. */
export function trackerLabels(map: MlMap): LabelCandidate[] {
  if (!map.getLayer('clusters')) return [];
  const out: LabelCandidate[] = [];
  for (const f of map.queryRenderedFeatures({ layers: ['clusters', 'trackers'] })) {
    const at = (f.geometry as GeoJSON.Point).coordinates as [number, number];
    if (f.layer.id === 'clusters') out.push({ key: `c:${f.properties.cluster_id}`, lngLat: at, text: String(f.properties.point_count_abbreviated), priority: 10 + Number(f.properties.point_count), className: 'label-cluster' });
    else if (map.getZoom() >= 9) out.push({ key: `t:${f.properties.id}`, lngLat: at, text: String(f.properties.label), priority: f.properties.selected ? 5 : 1, className: 'label-tracker', offsetX: 11 });
  }
  return out;
}

/**
 * What a click on the map does: select a tracker, zoom into a cluster, or spread trackers that
 * share one spot. Answers a function that closes an open spread.
 */
export function onTrackerClick(map: MlMap, onSelect: (id: number) => void): () => void {
  let closeSpread = () => {};
  map.on('click', async (e) => {
    closeSpread();
    const box: [maplibregl.PointLike, maplibregl.PointLike] = [
      [e.point.x - 6, e.point.y - 6],
      [e.point.x + 6, e.point.y + 6],
    ];
    const hits = map.queryRenderedFeatures(box, { layers: ['clusters', 'trackers'] });
    if (!hits.length) return;
    const cluster = hits.find((f) => f.layer.id === 'clusters');
    const source = map.getSource('trackers') as GeoJSONSource;
    if (cluster) {
      const id = Number(cluster.properties.cluster_id);
      const center = (cluster.geometry as GeoJSON.Point).coordinates as [number, number];
      const expansion = await source.getClusterExpansionZoom(id);
      // Still one cluster at the deepest clustering zoom: the trackers share a spot; spread them.
      if (expansion > CLUSTER_MAX_ZOOM || map.getZoom() >= CLUSTER_MAX_ZOOM) closeSpread = spreadAt(map, center, (await source.getClusterLeaves(id, 50, 0)) as unknown as MapGeoJSONFeature[], onSelect);
      else map.easeTo({ center, zoom: expansion });
      return;
    }
    if (hits.length > 1) closeSpread = spreadAt(map, (hits[0].geometry as GeoJSON.Point).coordinates as [number, number], hits, onSelect);
    else onSelect(Number(hits[0].properties.id));
  });
  return () => closeSpread();
}

/** Trackers at one spot as a ring of buttons around it; Escape or a choice closes it. */
export function spreadAt(map: MlMap, center: [number, number], features: MapGeoJSONFeature[], onSelect: (id: number) => void): () => void {
  const el = document.createElement('div');
  el.className = 'spread';
  el.setAttribute('role', 'group');
  el.setAttribute('aria-label', t('map.spread', { count: features.length }));
  // The map must not take these clicks as clicks on the map beneath.
  for (const type of ['mousedown', 'mouseup', 'click', 'dblclick', 'touchstart', 'touchend']) el.addEventListener(type, (e) => e.stopPropagation());
  const radius = 34 + features.length * 5;
  features.forEach((f, i) => {
    const angle = (2 * Math.PI * i) / features.length - Math.PI / 2;
    const b = document.createElement('button');
    b.type = 'button';
    b.className = `spread-item status-${f.properties.status}`;
    b.textContent = String(f.properties.label);
    b.style.transform = `translate(${Math.round(Math.cos(angle) * radius)}px, ${Math.round(Math.sin(angle) * radius)}px) translate(-50%, -50%)`;
    b.onclick = () => {
      close();
      onSelect(Number(f.properties.id));
    };
    el.appendChild(b);
  });
  const marker = new maplibregl.Marker({ element: el }).setLngLat(center).addTo(map);
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      close();
      map.getCanvas().focus();
    }
  };
  function close() {
    marker.remove();
    document.removeEventListener('keydown', onKey);
  }
  document.addEventListener('keydown', onKey);
  el.querySelector('button')?.focus();
  return close;
}
