/**
 * A MapLibre map on the configured basemap, shared by the screens: it hands the ready map to its
 * owner, keeps the offline basemap's place names as HTML labels and is operable by keyboard (the
 * canvas takes focus; arrows pan, + and - zoom).
 */
import { useEffect, useRef } from 'react';
import * as maplibregl from 'maplibre-gl';
import type { Map as MlMap } from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import '../../../shared/map/worker.ts';
import { t } from '../i18n/i18n.ts';
import { basemapStyle } from '../../../shared/map/basemap.ts';
import { useMapSettings } from '../app/context.ts';
import { HtmlLabels, placeLabels } from './html-labels.ts';

interface Props {
  label: string;
  onReady: (map: MlMap) => void;
  /** Screen labels drawn with the place names (one placement, so they never overlap). */
  extraLabels?: (map: MlMap) => import('./html-labels.ts').LabelCandidate[];
  labelsVersion?: number;
}

export function MapCanvas({ label, onReady, extraLabels, labelsVersion }: Props) {
  const holder = useRef<HTMLDivElement>(null);
  const mapRef = useRef<MlMap | null>(null);
  const labelsRef = useRef<HtmlLabels | null>(null);
  const extraRef = useRef(extraLabels);
  extraRef.current = extraLabels;
  const settings = useMapSettings();

  useEffect(() => {
    let cancelled = false;
    let map: MlMap | undefined;
    void basemapStyle(settings).then(({ style }) => {
      if (cancelled || !holder.current) return;
      map = new maplibregl.Map({
        container: holder.current,
        style,
        center: [10, 30],
        zoom: 1.5,
        maxZoom: settings.max_zoom,
        attributionControl: { compact: true, customAttribution: settings.attribution ?? undefined },
        locale: { 'NavigationControl.ZoomIn': t('map.zoomIn'), 'NavigationControl.ZoomOut': t('map.zoomOut') },
        // Keeps the last frame readable for screenshots and printing.
        canvasContextAttributes: { preserveDrawingBuffer: true },
      });
      map.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'top-right');
      map.getCanvas().setAttribute('aria-label', label);
      mapRef.current = map;
      const labels = new HtmlLabels(map, 'labels');
      labelsRef.current = labels;
      // At most once a frame: after moves, when the map settles, and when a source's data arrives
      // (the screen's points are labelled without waiting for the whole basemap).
      let frame = 0;
      const relabel = () => {
        if (frame) return;
        frame = requestAnimationFrame(() => {
          frame = 0;
          if (map && !cancelled) labels.update([...placeLabels(map), ...(extraRef.current?.(map) ?? [])]);
        });
      };
      map.on('moveend', relabel);
      map.on('idle', relabel);
      map.on('sourcedata', (e) => {
        if (e.isSourceLoaded) relabel();
      });
      // As soon as the style is parsed, not after the basemap's data is loaded and drawn ('load'):
      // the screen's layers (trackers) then appear with the first frames.
      // Marks for bench/console (the performance timeline; no cost worth counting).
      map.once('style.load', () => performance.mark('map:style'));
      map.once('load', () => performance.mark('map:load'));
      map.once('idle', () => performance.mark('map:idle'));
      map.once('style.load', () => {
        onReady(map!);
        relabel();
      });
    });
    return () => {
      cancelled = true;
      labelsRef.current?.remove();
      map?.remove();
      mapRef.current = null;
    };
    // The map is made once per screen; settings do not change while it lives.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const map = mapRef.current;
    if (map && labelsRef.current && map.loaded()) labelsRef.current.update([...placeLabels(map), ...(extraRef.current?.(map) ?? [])]);
  }, [labelsVersion]);

  return <div ref={holder} className="map" role="region" aria-label={label} />;
}
