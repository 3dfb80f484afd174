/**
 * History: a tracker's trips and stops of a period (track/list, track/read) on the map, and a time
 * slider that replays the track (play, pause, speed; the arrow keys step the slider).
 */
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import * as maplibregl from 'maplibre-gl';
import type { GeoJSONSource, Map as MlMap } from 'maplibre-gl';
import type { TrackPoint, Trip } from '../../api/types.ts';
import { useSession } from '../../app/context.ts';
import { navigate, useRoute } from '../../app/router.ts';
import { formatNumber, t } from '../../i18n/i18n.ts';
import { MapCanvas } from '../../map/MapCanvas.tsx';
import { addTrackLine, setTrackLine } from '../../map/track-line.ts';
import { fromInput, nowIn, toInput, wallMs, wallString } from '../../util/time.ts';
import { errorText } from '../signin/SignIn.tsx';
import { positionAt, stopsBetween, timed, type Stop, type Timed } from './replay.ts';

const SPEEDS = [10, 60, 300, 1200];
const EMPTY: GeoJSON.FeatureCollection = { type: 'FeatureCollection', features: [] };

function addHistoryLayers(map: MlMap) {
  addTrackLine(map);
  for (const id of ['stops', 'ends', 'replay']) map.addSource(id, { type: 'geojson', data: EMPTY });
  map.addLayer({ id: 'stops', type: 'circle', source: 'stops', paint: { 'circle-radius': 7, 'circle-color': '#b35c00', 'circle-stroke-color': '#fff', 'circle-stroke-width': 2 } });
  map.addLayer({ id: 'ends', type: 'circle', source: 'ends', paint: { 'circle-radius': 6, 'circle-color': ['match', ['get', 'kind'], 'start', '#1a7f37', '#cf222e'], 'circle-stroke-color': '#fff', 'circle-stroke-width': 2 } });
  map.addLayer({ id: 'replay', type: 'circle', source: 'replay', paint: { 'circle-radius': 9, 'circle-color': '#6639ba', 'circle-stroke-color': '#fff', 'circle-stroke-width': 3 } });
}

const point = (lng: number, lat: number, props: Record<string, unknown> = {}): GeoJSON.Feature => ({ type: 'Feature', properties: props, geometry: { type: 'Point', coordinates: [lng, lat] } });

export function HistoryScreen() {
  const { api, trackers, timeZone } = useSession();
  const route = useRoute();
  const today = nowIn(timeZone);
  const [trackerId, setTrackerId] = useState<number | ''>(() => Number(route.params.get('tracker')) || trackers[0]?.id || '');
  const [from, setFrom] = useState(toInput(`${today.slice(0, 10)} 00:00:00`));
  const [to, setTo] = useState(toInput(wallString(wallMs(today) + 60_000)));
  const [trips, setTrips] = useState<Trip[] | null>(null);
  const [points, setPoints] = useState<Timed[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [at, setAt] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(60);
  const [map, setMap] = useState<MlMap | null>(null);
  const stops = useMemo<Stop[]>(() => (trips ? stopsBetween(trips, points) : []), [trips, points]);

  const show = useCallback(
    async (e?: FormEvent) => {
      e?.preventDefault();
      if (!trackerId) return;
      setBusy(true);
      setError(null);
      setPlaying(false);
      try {
        const period = { tracker_id: trackerId, from: fromInput(from), to: fromInput(to) };
        const [list, read] = await Promise.all([api.call<{ list: Trip[] }>('track/list', period), api.call<{ list: TrackPoint[] }>('track/read', period)]);
        const pts = timed(read.list);
        setTrips(list.list);
        setPoints(pts);
        setAt(pts[0]?.ms ?? 0);
      } catch (err) {
        setError(errorText(err));
        setTrips(null);
        setPoints([]);
      } finally {
        setBusy(false);
      }
    },
    [api, trackerId, from, to],
  );

  // A tracker chosen from the live map's panel: its history at once.
  useEffect(() => {
    if (route.params.get('tracker')) void show();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    if (!map) return;
    const src = (id: string) => map.getSource(id) as GeoJSONSource;
    setTrackLine(map, points.map((p) => [p.lng, p.lat]));
    src('stops').setData({ type: 'FeatureCollection', features: stops.map((s) => point(s.lng, s.lat)) });
    src('ends').setData(points.length ? { type: 'FeatureCollection', features: [point(points[0].lng, points[0].lat, { kind: 'start' }), point(points[points.length - 1].lng, points[points.length - 1].lat, { kind: 'end' })] } : EMPTY);
    if (points.length) {
      const b = new maplibregl.LngLatBounds();
      for (const p of points) b.extend([p.lng, p.lat]);
      map.fitBounds(b, { padding: 60, maxZoom: 15, duration: 0 });
    }
  }, [map, points, stops]);

  const here = positionAt(points, at);
  useEffect(() => {
    if (map) (map.getSource('replay') as GeoJSONSource).setData(here ? point(here.lng, here.lat) : EMPTY);
  }, [map, here?.lng, here?.lat]); // eslint-disable-line react-hooks/exhaustive-deps

  // Playing: the replay time advances `speed` seconds per second.
  const last = useRef(0);
  useEffect(() => {
    if (!playing || !points.length) return;
    let frame = 0;
    last.current = performance.now();
    const end = points[points.length - 1].ms;
    const step = (now: number) => {
      const dt = now - last.current;
      last.current = now;
      setAt((v) => {
        const next = Math.min(end, v + dt * speed);
        if (next >= end) setPlaying(false);
        return next;
      });
      frame = requestAnimationFrame(step);
    };
    frame = requestAnimationFrame(step);
    return () => cancelAnimationFrame(frame);
  }, [playing, points, speed]);

  const onReady = useCallback((m: MlMap) => {
    addHistoryLayers(m);
    setMap(m);
  }, []);

  const first = points[0]?.ms ?? 0;
  const lastMs = points[points.length - 1]?.ms ?? 0;
  return (
    <div className="history">
      <section className="history-side" aria-labelledby="history-heading">
        <h2 id="history-heading">{t('history.heading')}</h2>
        <form onSubmit={show} className="period">
          <label htmlFor="h-tracker">{t('history.tracker')}</label>
          <select
            id="h-tracker"
            value={trackerId}
            onChange={(e) => {
              setTrackerId(Number(e.target.value));
              navigate(`/history?tracker=${e.target.value}`);
            }}
          >
            {!trackerId && <option value="">{t('history.chooseTracker')}</option>}
            {trackers.map((tr) => (
              <option key={tr.id} value={tr.id}>
                {tr.label}
              </option>
            ))}
          </select>
          <label htmlFor="h-from">{t('history.from')}</label>
          <input id="h-from" type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />
          <label htmlFor="h-to">{t('history.to')}</label>
          <input id="h-to" type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} />
          <button type="submit" disabled={busy || !trackerId}>
            {busy ? t('history.loading') : t('history.show')}
          </button>
        </form>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {trips && (
          <>
            <h3>{t('history.trips')}</h3>
            {trips.length === 0 && <p className="empty">{t('history.none')}</p>}
            <ol className="trips">
              {trips
                .filter((tr) => tr.type === 'regular')
                .map((tr, i) => (
                  <li key={tr.id}>
                    <button type="button" onClick={() => setAt(wallMs(tr.start_date))}>
                      <strong>{t('history.trip', { n: i + 1 })}</strong>
                      <span>{t('history.tripSummary', { start: tr.start_date.slice(11, 16), end: (tr.end_date ?? '').slice(11, 16), length: t('unit.km', { value: formatNumber(tr.length ?? 0, 1) }) })}</span>
                    </button>
                  </li>
                ))}
              {stops.map((s) => (
                <li key={s.start} className="stop">
                  <button type="button" onClick={() => setAt(wallMs(s.start))}>
                    <strong>{t('history.stop')}</strong>
                    <span>{t('history.stopSummary', { start: s.start.slice(11, 16), end: s.end.slice(11, 16) })}</span>
                  </button>
                </li>
              ))}
            </ol>
          </>
        )}
      </section>
      <div className="history-main">
        <MapCanvas label={t('map.label')} onReady={onReady} />
        {points.length > 1 && (
          <div className="replay" role="group" aria-label={t('history.replay')}>
            <button type="button" onClick={() => (playing ? setPlaying(false) : (setAt((v) => (v >= lastMs ? first : v)), setPlaying(true)))}>
              {playing ? t('history.pause') : t('history.play')}
            </button>
            <label htmlFor="h-at" className="sr-only">
              {t('history.position')}
            </label>
            <input id="h-at" type="range" min={first} max={lastMs} step={1000} value={Math.round(at)} onChange={(e) => setAt(Number(e.target.value))} aria-valuetext={here ? here.point.get_time : ''} />
            <label htmlFor="h-speed" className="sr-only">
              {t('history.speedLabel')}
            </label>
            <select id="h-speed" value={speed} onChange={(e) => setSpeed(Number(e.target.value))}>
              {SPEEDS.map((s) => (
                <option key={s} value={s}>{`×${s}`}</option>
              ))}
            </select>
            <output htmlFor="h-at" className="replay-time">
              {here ? t('history.at', { time: wallString(Math.round(at / 1000) * 1000), speed: t('unit.kmh', { value: formatNumber(here.point.speed) }) }) : ''}
            </output>
          </div>
        )}
      </div>
    </div>
  );
}
