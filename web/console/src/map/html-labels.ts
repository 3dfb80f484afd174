/**
 * Text on the map as HTML elements instead of map symbols: the basemap needs no glyph files (it
 * works offline), labels scale with the browser's zoom and screen readers can reach them. Each
 * update places candidates by priority and drops those that would overlap a placed one.
 */
import type { Map as MlMap } from 'maplibre-gl';

export interface LabelCandidate {
  key: string;
  lngLat: [number, number];
  text: string;
  /** Higher first. */
  priority: number;
  className: string;
  /** Pixels from the point to the label's left edge (labels beside a dot); 0 centres it. */
  offsetX?: number;
}

export class HtmlLabels {
  private readonly layer: HTMLDivElement;
  private readonly pool = new Map<string, HTMLDivElement>();

  constructor(
    private readonly map: MlMap,
    className: string,
    private readonly max = 150,
  ) {
    this.layer = document.createElement('div');
    this.layer.className = `map-labels ${className}`;
    this.layer.setAttribute('aria-hidden', 'true');
    map.getCanvasContainer().appendChild(this.layer);
  }

  update(candidates: LabelCandidate[]): void {
    const placed: [number, number, number, number][] = [];
    const keep = new Set<string>();
    const { width, height } = this.map.getCanvas().getBoundingClientRect();
    for (const c of [...candidates].sort((a, b) => b.priority - a.priority)) {
      if (keep.size >= this.max) break;
      const p = this.map.project(c.lngLat);
      if (p.x < -50 || p.y < -20 || p.x > width + 50 || p.y > height + 20) continue;
      let el = this.pool.get(c.key);
      if (!el) {
        el = document.createElement('div');
        this.pool.set(c.key, el);
        this.layer.appendChild(el);
      }
      if (el.textContent !== c.text) el.textContent = c.text;
      if (el.className !== c.className) el.className = c.className;
      const w = el.offsetWidth;
      const h = el.offsetHeight;
      const x = c.offsetX === undefined ? p.x - w / 2 : p.x + c.offsetX;
      const y = p.y - h / 2;
      if (placed.some(([a, b, cw, ch]) => x < a + cw && x + w > a && y < b + ch && y + h > b)) {
        el.style.display = 'none';
        continue;
      }
      placed.push([x - 2, y - 1, w + 4, h + 2]);
      el.style.display = '';
      el.style.transform = `translate(${Math.round(x)}px, ${Math.round(y)}px)`;
      keep.add(c.key);
    }
    for (const [key, el] of this.pool) {
      if (keep.has(key)) continue;
      el.remove();
      this.pool.delete(key);
    }
  }

  remove(): void {
    this.layer.remove();
    this.pool.clear();
  }
}

/** Names of the offline basemap's places in view (largest first), as label candidates. */
export function placeLabels(map: MlMap): LabelCandidate[] {
  if (!map.getLayer('places')) return [];
  return map.queryRenderedFeatures({ layers: ['places'] }).map((f) => ({
    key: `place:${f.properties.name}:${(f.geometry as GeoJSON.Point).coordinates.join(',')}`,
    lngLat: (f.geometry as GeoJSON.Point).coordinates as [number, number],
    text: String(f.properties.name),
    priority: Number(f.properties.population) / 1e9,
    className: 'label-place',
    offsetX: 6,
  }));
}

/** Labels of a screen's point layer whose features carry `id`, `label` and `selected` (the selected one placed first). */
export function pointLabels(map: MlMap, layer: string, className: string, offsetX: number): LabelCandidate[] {
  if (!map.getLayer(layer)) return [];
  return map.queryRenderedFeatures({ layers: [layer] }).map((f) => ({
    key: `${layer}:${f.properties.id}`,
    lngLat: (f.geometry as GeoJSON.Point).coordinates as [number, number],
    text: String(f.properties.label),
    priority: f.properties.selected ? 4 : 2,
    className,
    offsetX,
  }));
}
