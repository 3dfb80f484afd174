/** Tasks on the dispatch map: each task's zone as a circle coloured by status, its label in HTML. */
import type { GeoJSONSource, Map as MlMap } from 'maplibre-gl';
import type { Task } from '../../api/types.ts';
import { pointLabels, type LabelCandidate } from '../../map/html-labels.ts';
import { circle } from '../../map/geometry.ts';

export const TASK_COLORS: Record<string, string> = { unassigned: '#6e7781', assigned: '#1d6fd6', arrived: '#bf8700', done: '#1a7f37', failed: '#cf222e', delayed: '#b35c00', faulty: '#8250df' };

export function addTaskLayers(map: MlMap): void {
  map.addSource('tasks', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
  map.addSource('task-centers', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
  const color = ['match', ['get', 'status'], ...Object.entries(TASK_COLORS).flat(), '#6e7781'] as never;
  map.addLayer({ id: 'task-zones', type: 'fill', source: 'tasks', paint: { 'fill-color': color, 'fill-opacity': 0.18 } });
  map.addLayer({ id: 'task-outlines', type: 'line', source: 'tasks', paint: { 'line-color': color, 'line-width': ['case', ['get', 'selected'], 3, 1.5] } });
  map.addLayer({ id: 'task-centers', type: 'circle', source: 'task-centers', paint: { 'circle-radius': 5, 'circle-color': color, 'circle-stroke-color': '#fff', 'circle-stroke-width': 2 } });
}

export function showTasks(map: MlMap, tasks: Task[], selected: number | null): void {
  const props = (t: Task) => ({ id: t.id, label: t.label, status: t.status, selected: t.id === selected });
  (map.getSource('tasks') as GeoJSONSource).setData({ type: 'FeatureCollection', features: tasks.map((t) => ({ type: 'Feature', properties: props(t), geometry: circle(t.location.lat, t.location.lng, t.location.radius) })) });
  (map.getSource('task-centers') as GeoJSONSource).setData({ type: 'FeatureCollection', features: tasks.map((t) => ({ type: 'Feature', properties: props(t), geometry: { type: 'Point', coordinates: [t.location.lng, t.location.lat] } })) });
}

export const taskLabels = (map: MlMap): LabelCandidate[] => pointLabels(map, 'task-centers', 'label-task', 9);
