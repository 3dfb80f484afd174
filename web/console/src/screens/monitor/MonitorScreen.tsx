/** The live map: every tracker on the map and in the searchable list; a chosen tracker's panel. */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { GeoJSONSource, Map as MlMap } from 'maplibre-gl';
import { useSession } from '../../app/context.ts';
import { t } from '../../i18n/i18n.ts';
import { useLiveStates } from '../../live/useLive.ts';
import { MapCanvas } from '../../map/MapCanvas.tsx';
import { TrackerList } from './TrackerList.tsx';
import { TrackerPanel } from './TrackerPanel.tsx';
import { addTrackerLayers, onTrackerClick, trackerFeatures, trackerLabels } from './trackers-layer.ts';

export function MonitorScreen() {
  const { trackers, live } = useSession();
  const { states, version } = useLiveStates(live);
  const [selected, setSelected] = useState<number | null>(null);
  const [map, setMap] = useState<MlMap | null>(null);
  const fitted = useRef(false);

  const onReady = useCallback((m: MlMap) => {
    addTrackerLayers(m);
    onTrackerClick(m, setSelected);
    setMap(m);
  }, []);

  useEffect(() => {
    if (!map) return;
    const data = trackerFeatures(trackers, states, selected);
    (map.getSource('trackers') as GeoJSONSource | undefined)?.setData(data);
    // The first positions frame the fleet.
    if (!fitted.current && data.features.length) {
      fitted.current = true;
      performance.mark('trackers:first');
      const xs = data.features.map((f) => (f.geometry as GeoJSON.Point).coordinates);
      const lng = xs.map((c) => c[0]);
      const lat = xs.map((c) => c[1]);
      map.fitBounds([Math.min(...lng), Math.min(...lat), Math.max(...lng), Math.max(...lat)], { padding: 60, maxZoom: 13, duration: 0 });
    }
  }, [map, trackers, states, version, selected]);

  const select = useCallback(
    (id: number) => {
      setSelected(id);
      const loc = live?.states.get(id)?.gps.location;
      if (map && loc) map.easeTo({ center: [loc.lng, loc.lat], zoom: Math.max(map.getZoom(), 13) });
    },
    [map, live],
  );

  const tracker = trackers.find((tr) => tr.id === selected);
  return (
    <div className={tracker ? 'monitor with-panel' : 'monitor'}>
      <TrackerList trackers={trackers} states={states} selected={selected} onSelect={select} />
      <MapCanvas label={t('map.label')} onReady={onReady} extraLabels={trackerLabels} labelsVersion={version} />
      {tracker && <TrackerPanel tracker={tracker} state={states.get(tracker.id)} onClose={() => setSelected(null)} />}
    </div>
  );
}
