/**
 * The task's place on a small map (docs/field-app.md, "Screens"): the task circle and its centre,
 * and the phone's own position with its accuracy. The basemap is the server's setting, as the
 * console draws it (web/shared/map: the offline Natural Earth basemap unless tiles are configured).
 * Loaded with the task screen only (MapLibre is a chunk of its own).
 */
import { useEffect, useRef, useState } from 'react';
import * as maplibregl from 'maplibre-gl';
import type { GeoJSONSource, LngLatBoundsLike, Map as MlMap } from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import '../../shared/map/worker.ts';
import { loadMapSettings } from '../../shared/map/config.ts';
import { basemapStyle } from '../../shared/map/basemap.ts';

type Place = { lat: number; lng: number; radius: number };
type Here = { lat: number; lng: number; accuracy: number | null } | null;

/** A circle of `radius` metres as a polygon of 64 points (small circles: a flat-earth offset is exact enough). */
function circle(lat: number, lng: number, radius: number): GeoJSON.Polygon {
  const dLat = radius / 111_320;
  const dLng = radius / (111_320 * Math.cos((lat * Math.PI) / 180));
  const ring = Array.from({ length: 65 }, (_, i) => {
    const a = (i / 64) * 2 * Math.PI;
    return [lng + dLng * Math.cos(a), lat + dLat * Math.sin(a)];
  });
  return { type: 'Polygon', coordinates: [ring] };
}

const hereData = (here: Here): GeoJSON.FeatureCollection => ({
  type: 'FeatureCollection',
  features: here
    ? [
        ...(here.accuracy ? [{ type: 'Feature' as const, properties: {}, geometry: circle(here.lat, here.lng, here.accuracy) }] : []),
        { type: 'Feature' as const, properties: {}, geometry: { type: 'Point' as const, coordinates: [here.lng, here.lat] } },
      ]
    : [],
});

/** Both places in view when the phone is within 50 km of the task; the task alone otherwise. */
function view(place: Place, here: Here): LngLatBoundsLike {
  const box = circle(place.lat, place.lng, Math.max(place.radius, 100)).coordinates[0];
  const pts = here && Math.abs(here.lat - place.lat) < 0.45 && Math.abs(here.lng - place.lng) < 0.7 ? [...box, [here.lng, here.lat]] : box;
  const lngs = pts.map((p) => p[0]);
  const lats = pts.map((p) => p[1]);
  return [
    [Math.min(...lngs), Math.min(...lats)],
    [Math.max(...lngs), Math.max(...lats)],
  ];
}

export default function TaskMap({ place, here }: { place: Place; here: Here }) {
  const holder = useRef<HTMLDivElement>(null);
  const mapRef = useRef<MlMap | null>(null);
  const hereRef = useRef(here);
  hereRef.current = here;
  const [state, setState] = useState<'loading' | 'idle'>('loading');

  useEffect(() => {
    let cancelled = false;
    let map: MlMap | undefined;
    void loadMapSettings()
      .then((settings) => basemapStyle(settings).then(({ style }) => ({ settings, style })))
      .then(({ settings, style }) => {
        if (cancelled || !holder.current) return;
        map = new maplibregl.Map({
          container: holder.current,
          style,
          bounds: view(place, hereRef.current),
          fitBoundsOptions: { padding: 28, maxZoom: 17 },
          maxZoom: settings.max_zoom,
          attributionControl: { compact: true, customAttribution: settings.attribution ?? undefined },
          // Keeps the last frame readable for screenshots.
          canvasContextAttributes: { preserveDrawingBuffer: true },
        });
        map.getCanvas().setAttribute('aria-label', 'Map of the task place and your position');
        mapRef.current = map;
        map.once('style.load', () => {
          const m = map!;
          m.addSource('task', { type: 'geojson', data: { type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: circle(place.lat, place.lng, place.radius) }, { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [place.lng, place.lat] } }] } });
          m.addLayer({ id: 'task-area', type: 'fill', source: 'task', filter: ['==', ['geometry-type'], 'Polygon'], paint: { 'fill-color': '#d93025', 'fill-opacity': 0.15 } });
          m.addLayer({ id: 'task-edge', type: 'line', source: 'task', filter: ['==', ['geometry-type'], 'Polygon'], paint: { 'line-color': '#d93025', 'line-width': 2 } });
          m.addLayer({ id: 'task-point', type: 'circle', source: 'task', filter: ['==', ['geometry-type'], 'Point'], paint: { 'circle-radius': 7, 'circle-color': '#d93025', 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 2 } });
          m.addSource('here', { type: 'geojson', data: hereData(hereRef.current) });
          m.addLayer({ id: 'here-accuracy', type: 'fill', source: 'here', filter: ['==', ['geometry-type'], 'Polygon'], paint: { 'fill-color': '#1d6fd6', 'fill-opacity': 0.12 } });
          m.addLayer({ id: 'here-point', type: 'circle', source: 'here', filter: ['==', ['geometry-type'], 'Point'], paint: { 'circle-radius': 6, 'circle-color': '#1d6fd6', 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 2 } });
          m.on('idle', () => !cancelled && setState('idle'));
        });
      });
    return () => {
      cancelled = true;
      map?.remove();
      mapRef.current = null;
    };
    // One map per task screen; the position is updated below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [place.lat, place.lng, place.radius]);

  useEffect(() => {
    const src = mapRef.current?.getSource('here') as GeoJSONSource | undefined;
    if (!src) return;
    setState('loading');
    src.setData(hereData(here));
  }, [here?.lat, here?.lng, here?.accuracy]);

  return (
    <>
      <div ref={holder} className="task-map" data-state={state} role="region" aria-label="Map of the task place and your position" />
      <p className="hint map-legend">
        <span className="key key-task" /> Task place ({place.radius} m) <span className="key key-here" /> {here ? `You (±${Math.round(here.accuracy ?? 0)} m)` : 'Your position: waiting'}
      </p>
    </>
  );
}
