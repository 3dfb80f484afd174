/**
 * The dispatch board: a day's tasks as a table and on the map (task/list, polled so status changes
 * made by the telemetry core show within seconds), assignment from the table (task/assign), new
 * tasks placed by typing or by clicking the map (task/create). Trackers are on the same map.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { GeoJSONSource, Map as MlMap, MapMouseEvent } from 'maplibre-gl';
import type { Task, TaskStatus } from '../../api/types.ts';
import { useSession } from '../../app/context.ts';
import { Notices } from '../../app/ui.tsx';
import { t, type MessageKey } from '../../i18n/i18n.ts';
import { useLiveStates } from '../../live/useLive.ts';
import { MapCanvas } from '../../map/MapCanvas.tsx';
import { nowIn } from '../../util/time.ts';
import { addTrackerLayers, trackerFeatures, trackerLabels } from '../monitor/trackers-layer.ts';
import { errorText } from '../signin/SignIn.tsx';
import { addTaskLayers, showTasks, taskLabels } from './task-layer.ts';
import { TaskForm, type PlacePick } from './TaskForm.tsx';

const STATUSES: TaskStatus[] = ['unassigned', 'assigned', 'arrived', 'done', 'delayed', 'failed', 'faulty'];
const POLL_MS = 3000;
type SortKey = 'label' | 'status' | 'from' | 'location';
const COLUMNS: { key: SortKey | null; title: MessageKey }[] = [
  { key: 'label', title: 'dispatch.col.label' },
  { key: 'status', title: 'dispatch.col.status' },
  { key: null, title: 'dispatch.col.tracker' },
  { key: 'from', title: 'dispatch.col.window' },
  { key: 'location', title: 'dispatch.col.address' },
];

export function DispatchScreen() {
  const { api, trackers, live, timeZone } = useSession();
  const { states, version } = useLiveStates(live, 1000);
  const [day, setDay] = useState(() => nowIn(timeZone).slice(0, 10));
  const [status, setStatus] = useState<TaskStatus | ''>('');
  const [filter, setFilter] = useState('');
  const [sort, setSort] = useState<{ key: SortKey; dir: 'asc' | 'desc' }>({ key: 'from', dir: 'asc' });
  const [tasks, setTasks] = useState<Task[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [creating, setCreating] = useState(false);
  const [picking, setPicking] = useState(false);
  const [place, setPlace] = useState<PlacePick>({ lat: '', lng: '' });
  const [map, setMap] = useState<MlMap | null>(null);
  const pickingRef = useRef(picking);
  pickingRef.current = picking;

  const load = useCallback(async () => {
    try {
      const r = await api.call<{ list: Task[] }>('task/list', {
        from: `${day} 00:00:00`,
        to: `${day} 23:59:59`,
        ...(status ? { statuses: [status] } : {}),
        ...(filter.trim() ? { filter: filter.trim() } : {}),
        sort: [`${sort.key}=${sort.dir}`],
      });
      setTasks(r.list);
      setError(null);
    } catch (e) {
      setError(errorText(e));
    }
  }, [api, day, status, filter, sort]);

  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), POLL_MS);
    return () => clearInterval(timer);
  }, [load]);

  const onReady = useCallback((m: MlMap) => {
    addTaskLayers(m);
    addTrackerLayers(m);
    m.on('click', (e: MapMouseEvent) => {
      if (pickingRef.current) {
        setPlace({ lat: e.lngLat.lat.toFixed(6), lng: e.lngLat.lng.toFixed(6) });
        setPicking(false);
        return;
      }
      const hit = m.queryRenderedFeatures(e.point, { layers: ['task-centers', 'task-zones'] })[0];
      if (hit) setSelected(Number(hit.properties.id));
    });
    setMap(m);
  }, []);

  useEffect(() => {
    if (map) (map.getSource('trackers') as GeoJSONSource | undefined)?.setData(trackerFeatures(trackers, states, null));
  }, [map, trackers, states, version]);

  const framed = useRef(false);
  useEffect(() => {
    if (!map || !tasks) return;
    showTasks(map, tasks, selected);
    if (!framed.current && tasks.length) {
      framed.current = true;
      const lng = tasks.map((x) => x.location.lng);
      const lat = tasks.map((x) => x.location.lat);
      map.fitBounds([Math.min(...lng), Math.min(...lat), Math.max(...lng), Math.max(...lat)], { padding: 80, maxZoom: 14, duration: 0 });
    }
  }, [map, tasks, selected]);

  useEffect(() => {
    if (map) map.getCanvas().style.cursor = picking ? 'crosshair' : '';
  }, [map, picking]);

  const choose = (task: Task) => {
    setSelected(task.id);
    map?.easeTo({ center: [task.location.lng, task.location.lat], zoom: Math.max(map.getZoom(), 14) });
  };

  const assign = async (task: Task, trackerId: string) => {
    try {
      await api.call('task/assign', { task_id: task.id, tracker_id: trackerId ? Number(trackerId) : null });
      await load();
    } catch (e) {
      setError(errorText(e));
    }
  };

  const trackerName = useMemo(() => new Map(trackers.map((tr) => [tr.id, tr.label])), [trackers]);
  const sortBy = (key: SortKey) => setSort((s) => ({ key, dir: s.key === key && s.dir === 'asc' ? 'desc' : 'asc' }));

  return (
    <div className="dispatch">
      <section className="dispatch-side" aria-labelledby="dispatch-heading">
        <div className="list-head">
          <h2 id="dispatch-heading">{t('dispatch.heading')}</h2>
          {tasks && <span className="count">{t('dispatch.count', { count: tasks.length })}</span>}
        </div>
        <div className="toolbar">
          <label htmlFor="d-day" className="sr-only">
            {t('history.from')}
          </label>
          <input id="d-day" type="date" value={day} onChange={(e) => setDay(e.target.value)} />
          <label htmlFor="d-status" className="sr-only">
            {t('dispatch.status')}
          </label>
          <select id="d-status" value={status} onChange={(e) => setStatus(e.target.value as TaskStatus | '')}>
            <option value="">{t('dispatch.allStatuses')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`task.${s}` as MessageKey)}
              </option>
            ))}
          </select>
          <label htmlFor="d-filter" className="sr-only">
            {t('dispatch.filter')}
          </label>
          <input id="d-filter" type="search" placeholder={t('dispatch.filterPlaceholder')} value={filter} onChange={(e) => setFilter(e.target.value)} />
          <button type="button" onClick={() => setCreating(true)} disabled={creating}>
            {t('dispatch.new')}
          </button>
        </div>
        <Notices note={note} error={error} />
        {creating && (
          <TaskForm
            trackers={trackers}
            place={place}
            onPlace={setPlace}
            picking={picking}
            onPick={() => setPicking((p) => !p)}
            onCancel={() => {
              setCreating(false);
              setPicking(false);
            }}
            onCreated={(id, label) => {
              setCreating(false);
              setSelected(id);
              setNote(t('dispatch.form.created', { label }));
              void load();
            }}
          />
        )}
        <div className="table-wrap">
          <table className="tasks">
            <thead>
              <tr>
                {COLUMNS.map((c) => (
                  <th key={c.title} scope="col" aria-sort={c.key && sort.key === c.key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined}>
                    {c.key ? (
                      <button type="button" className="sort" onClick={() => sortBy(c.key!)} aria-label={t('dispatch.sortBy', { column: t(c.title) })}>
                        {t(c.title)}
                        {sort.key === c.key ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}
                      </button>
                    ) : (
                      t(c.title)
                    )}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {tasks?.map((task) => (
                <tr key={task.id} className={task.id === selected ? 'selected' : undefined}>
                  <th scope="row">
                    <button type="button" className="link" onClick={() => choose(task)}>
                      {task.label}
                    </button>
                  </th>
                  <td>
                    <span className={`badge badge-${task.status}`}>{t(`task.${task.status}` as MessageKey)}</span>
                  </td>
                  <td>
                    {task.status === 'assigned' || task.status === 'unassigned' ? (
                      <select aria-label={t('dispatch.assignTo', { task: task.label })} value={task.tracker_id ?? ''} onChange={(e) => void assign(task, e.target.value)}>
                        <option value="">{t('dispatch.unassigned')}</option>
                        {trackers.map((tr) => (
                          <option key={tr.id} value={tr.id}>
                            {tr.label}
                          </option>
                        ))}
                      </select>
                    ) : (
                      (task.tracker_id && trackerName.get(task.tracker_id)) ?? ''
                    )}
                  </td>
                  <td className="nowrap">{`${task.from.slice(11, 16)}–${task.to.slice(11, 16)}`}</td>
                  <td>{task.location.address}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {tasks && tasks.length === 0 && <p className="empty pad">{t('dispatch.none')}</p>}
        </div>
      </section>
      <MapCanvas label={t('dispatch.map')} onReady={onReady} extraLabels={(m) => [...taskLabels(m), ...trackerLabels(m)]} labelsVersion={version + (tasks?.length ?? 0)} />
    </div>
  );
}
