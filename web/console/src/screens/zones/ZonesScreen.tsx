/**
 * Places and zones: the user's zones (zone/list, polygon and sausage points by zone/point/list) and
 * places (place/list) in lists and on the map; a new circle, polygon, sausage or place is drawn by
 * clicking the map (or, by keyboard, at the map's centre), its points dragged into place; a zone or
 * place chosen in a list or on the map is edited or deleted the same way; files are imported
 * (ImportForm).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { LngLat, Map as MlMap, MapMouseEvent } from 'maplibre-gl';
import type { LatLng, Place, Zone } from '../../api/types.ts';
import { useSession } from '../../app/context.ts';
import { Notices } from '../../app/ui.tsx';
import { t, type MessageKey } from '../../i18n/i18n.ts';
import { metres } from '../../map/geometry.ts';
import { MapCanvas } from '../../map/MapCanvas.tsx';
import { errorText } from '../signin/SignIn.tsx';
import { DraftForm } from './DraftForm.tsx';
import { ImportForm } from './ImportForm.tsx';
import { addZoneLayers, boundsOf, showDraft, showPlaces, showZones, zoneLabels, type Draft } from './zone-layer.ts';

const TYPES: Zone['type'][] = ['polygon', 'circle', 'sausage'];
const HIT_LAYERS = ['user-zone-fill', 'user-zone-sausage', 'user-zone-outline', 'user-place-fill', 'user-place-center'];
/** How near a point's handle a press grabs it (the drawn handle is 10 px across). */
const HANDLE_PX = 10;
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
const at = (l: LngLat): LatLng => ({ lat: round6(l.lat), lng: round6(l.lng) });

export function ZonesScreen() {
  const { api } = useSession();
  const [zones, setZones] = useState<Zone[] | null>(null);
  const [places, setPlaces] = useState<Place[]>([]);
  const [points, setPoints] = useState<Map<number, LatLng[]>>(new Map());
  const [filter, setFilter] = useState('');
  const [draft, setDraft] = useState<Draft | null>(null);
  const [importing, setImporting] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [map, setMap] = useState<MlMap | null>(null);
  const draftRef = useRef(draft);
  draftRef.current = draft;
  const data = useRef({ zones: [] as Zone[], places: [] as Place[], points });
  data.current = { zones: zones ?? [], places, points };

  const load = useCallback(async () => {
    try {
      const [z, p] = await Promise.all([api.call<{ list: Zone[] }>('zone/list'), api.call<{ list: Place[] }>('place/list')]);
      // Points of polygons and sausages, a few calls at a time.
      const next = new Map<number, LatLng[]>();
      const queue = z.list.filter((x) => x.type !== 'circle');
      await Promise.all(
        Array.from({ length: 6 }, async () => {
          for (let zone = queue.shift(); zone; zone = queue.shift()) next.set(zone.id, (await api.call<{ list: LatLng[] }>('zone/point/list', { zone_id: zone.id })).list);
        }),
      );
      setZones(z.list);
      setPlaces(p.list);
      setPoints(next);
      setError(null);
    } catch (e) {
      setError(errorText(e));
    }
  }, [api]);

  useEffect(() => void load(), [load]);

  /** A point given by a click or the map's centre: what it means depends on the shape being drawn. */
  const place = useCallback((p: LatLng) => {
    const d = draftRef.current;
    if (!d) return;
    if (d.kind === 'zone' && d.type !== 'circle') setDraft({ ...d, points: [...d.points, p], pointsChanged: true });
    else if (d.kind === 'zone' && d.center && !d.id) setDraft({ ...d, radius: Math.max(1, Math.round(metres(d.center, p))) });
    else setDraft({ ...d, center: p });
  }, []);

  const edit = useCallback((kind: 'zone' | 'place', id: number) => {
    setImporting(false);
    setNote(null);
    if (kind === 'zone') {
      const z = data.current.zones.find((x) => x.id === id)!;
      setDraft({ kind, id, type: z.type, label: z.label, color: z.color, radius: z.radius ?? 100, center: z.center ?? null, points: data.current.points.get(id) ?? [], pointsChanged: false, address: z.address, tags: z.tags });
    } else {
      const p = data.current.places.find((x) => x.id === id)!;
      const { lat, lng, radius, address } = p.location;
      setDraft({ kind, id, label: p.label, description: p.description, center: { lat, lng }, radius, address, external_id: p.external_id, tags: p.tags });
    }
  }, []);

  const onReady = useCallback(
    (m: MlMap) => {
      addZoneLayers(m);
      let dragging: number | null = null;
      let dragged = false;
      // The handle under the pointer, found from the draft itself (not the rendered layer, which
      // lags behind the last click while its data is in the worker).
      const handleAt = (x: number, y: number): number | null => {
        const d = draftRef.current;
        if (!d) return null;
        const handles = d.kind === 'zone' && d.type !== 'circle' ? d.points : d.center ? [d.center] : [];
        const i = handles.findIndex((p) => {
          const q = m.project([p.lng, p.lat]);
          return Math.hypot(q.x - x, q.y - y) <= HANDLE_PX;
        });
        return i < 0 ? null : d.kind === 'zone' && d.type !== 'circle' ? i : -1;
      };
      m.on('mousedown', (e: MapMouseEvent) => {
        dragging = handleAt(e.point.x, e.point.y);
        dragged = false;
        if (dragging !== null) e.preventDefault(); // the map does not pan: the handle moves
      });
      m.on('mousemove', (e: MapMouseEvent) => {
        const d = draftRef.current;
        if (dragging === null || !d) return;
        dragged = true;
        const p = at(e.lngLat);
        if (d.kind === 'zone' && dragging >= 0) setDraft({ ...d, points: d.points.map((q, i) => (i === dragging ? { ...q, ...p } : q)), pointsChanged: true });
        else setDraft({ ...d, center: p });
      });
      m.on('mouseup', () => {
        dragging = null;
      });
      m.on('click', (e: MapMouseEvent) => {
        if (dragged) {
          dragged = false;
          return;
        }
        if (draftRef.current) {
          if (handleAt(e.point.x, e.point.y) === null) place(at(e.lngLat));
          return;
        }
        const hit = m.queryRenderedFeatures(e.point, { layers: HIT_LAYERS })[0];
        if (hit) edit(hit.layer.id.startsWith('user-place') ? 'place' : 'zone', Number(hit.properties.id));
      });
      setMap(m);
    },
    [place, edit],
  );

  const framed = useRef(false);
  useEffect(() => {
    if (!map || !zones) return;
    showZones(map, zones, points, draft?.kind === 'zone' ? (draft.id ?? null) : null, null);
    showPlaces(map, places, draft?.kind === 'place' ? (draft.id ?? null) : null, null);
    const box = boundsOf(zones, places);
    if (!framed.current && box) {
      framed.current = true;
      map.fitBounds(box, { padding: 60, maxZoom: 15, duration: 0 });
    }
  }, [map, zones, places, points, draft?.kind, draft?.id]);

  useEffect(() => {
    if (!map) return;
    showDraft(map, draft);
    map.getCanvas().style.cursor = draft ? 'crosshair' : '';
  }, [map, draft]);

  const start = (d: Draft) => {
    setImporting(false);
    setNote(null);
    setDraft(d);
  };
  const newZone = (type: Zone['type']) => start({ kind: 'zone', type, label: '', color: '27A9E3', radius: type === 'sausage' ? 50 : 200, center: null, points: [], pointsChanged: true, address: '', tags: [] });
  const newPlace = () => start({ kind: 'place', label: '', description: '', center: null, radius: 100, address: '', external_id: null, tags: [] });
  const choose = (kind: 'zone' | 'place', id: number, box: [number, number, number, number] | null) => {
    edit(kind, id);
    if (map && box) map.fitBounds(box, { padding: 80, maxZoom: 16, duration: 0 });
  };

  const q = filter.trim().toLowerCase();
  const shownZones = useMemo(() => (zones ?? []).filter((z) => !q || z.label.toLowerCase().includes(q) || z.address.toLowerCase().includes(q)), [zones, q]);
  const shownPlaces = useMemo(() => places.filter((p) => !q || p.label.toLowerCase().includes(q) || p.location.address.toLowerCase().includes(q)), [places, q]);

  return (
    <div className="dispatch zones">
      <section className="dispatch-side" aria-labelledby="zones-heading">
        <div className="list-head">
          <h2 id="zones-heading">{t('zones.heading')}</h2>
          {zones && <span className="count">{t('zones.count', { zones: zones.length, places: places.length })}</span>}
        </div>
        <div className="toolbar" role="toolbar" aria-label={t('zones.tools')}>
          {TYPES.map((type) => (
            <button key={type} type="button" onClick={() => newZone(type)} disabled={!map}>
              {t(`zones.new.${type}` as MessageKey)}
            </button>
          ))}
          <button type="button" onClick={newPlace} disabled={!map}>
            {t('zones.new.place')}
          </button>
          <button type="button" onClick={() => (setDraft(null), setNote(null), setImporting(true))}>
            {t('zones.import.open')}
          </button>
        </div>
        <Notices note={note} error={error} />
        {importing && <ImportForm onImported={() => void load()} onClose={() => setImporting(false)} />}
        {draft && map && (
          <DraftForm
            key={`${draft.kind}:${draft.id ?? 'new'}`}
            draft={draft}
            onChange={setDraft}
            onAddAtCentre={() => place(at(map.getCenter()))}
            onCancel={() => setDraft(null)}
            onSaved={async (message) => {
              setDraft(null);
              // Said once the lists show the change.
              await load();
              setNote(message);
            }}
          />
        )}
        <div className="table-wrap">
          <label htmlFor="z-filter" className="sr-only">
            {t('zones.filter')}
          </label>
          <input id="z-filter" className="filter" type="search" placeholder={t('zones.filter')} value={filter} onChange={(e) => setFilter(e.target.value)} />
          <h3 className="sub-head">{t('zones.zones')}</h3>
          <ul className="entities" aria-label={t('zones.zones')}>
            {shownZones.map((z) => (
              <li key={z.id} className={draft?.kind === 'zone' && draft.id === z.id ? 'selected' : undefined}>
                <button type="button" onClick={() => choose('zone', z.id, z.bounds && [z.bounds.nw.lng, z.bounds.se.lat, z.bounds.se.lng, z.bounds.nw.lat])}>
                  <span className="swatch" style={{ background: `#${z.color}` }} aria-hidden="true" />
                  <span className="name">{z.label}</span>
                  <span className="meta">
                    {t(`zones.type.${z.type}` as MessageKey)}
                    {z.radius !== undefined ? ` · ${z.radius} m` : ''}
                    {points.has(z.id) ? ` · ${t('zones.points', { count: points.get(z.id)!.length })}` : ''}
                  </span>
                </button>
              </li>
            ))}
          </ul>
          {zones && shownZones.length === 0 && <p className="empty pad">{t('zones.noZones')}</p>}
          <h3 className="sub-head">{t('zones.places')}</h3>
          <ul className="entities" aria-label={t('zones.places')}>
            {shownPlaces.map((p) => (
              <li key={p.id} className={draft?.kind === 'place' && draft.id === p.id ? 'selected' : undefined}>
                <button type="button" onClick={() => choose('place', p.id, [p.location.lng, p.location.lat, p.location.lng, p.location.lat])}>
                  <span className="swatch place" aria-hidden="true" />
                  <span className="name">{p.label}</span>
                  <span className="meta">
                    {p.location.address || `${p.location.lat.toFixed(5)}, ${p.location.lng.toFixed(5)}`} · {p.location.radius} m
                  </span>
                </button>
              </li>
            ))}
          </ul>
          {zones && shownPlaces.length === 0 && <p className="empty pad">{t('zones.noPlaces')}</p>}
        </div>
      </section>
      <MapCanvas label={t('zones.map')} onReady={onReady} extraLabels={() => zoneLabels(data.current.zones, data.current.points, data.current.places)} labelsVersion={(zones?.length ?? 0) * 1000 + places.length + points.size} />
    </div>
  );
}
