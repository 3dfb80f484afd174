/**
 * The geofence index (issue 5; docs/geofences.md): an R-tree (rbush) of the boxes of zones, places
 * and task zones, followed by the exact test of each box hit. A worker keeps one as a cache and
 * rebuilds it from rows (`GeoIndex.fromRows`) when the `geo` version moves; the index never does I/O.
 */
import RBush from 'rbush';
import type { GeoKind } from '../types.ts';
import { geofencesFromRows, type Geofence, type GeoRows } from './rows.ts';
import { contains, edgeDistance, marginBox, shapeBox, type Box } from './shapes.ts';

export type { Geofence, GeoRows } from './rows.ts';

export interface GeoRef {
  kind: GeoKind;
  id: number;
}

/** A geofence near a point: inside or not, and the distance to its edge in metres. */
export interface GeoHit extends GeoRef {
  inside: boolean;
  distance: number;
}

/** A class, not a spread object literal: rbush's hot loop then sees one object shape. */
export class Item implements Box {
  constructor(
    readonly minX: number,
    readonly minY: number,
    readonly maxX: number,
    readonly maxY: number,
    readonly fence: Geofence,
  ) {}
}

const keyOf = (kind: GeoKind, id: number) => `${kind}:${id}`;

export class GeoIndex {
  private tree = new RBush<Item>();
  private items = new Map<string, Item>();

  /** Bulk load (rbush `load`: a better tree than inserting one by one). */
  static from(fences: readonly Geofence[]): GeoIndex {
    const index = new GeoIndex();
    for (const f of fences) {
      const item = toItem(f);
      // A repeated kind and id: the last one wins, as with insert.
      if (item) index.items.set(keyOf(f.kind, f.id), item);
      else index.items.delete(keyOf(f.kind, f.id));
    }
    index.tree.load([...index.items.values()]);
    return index;
  }

  /** From the rows of zones, zone_points, places and tasks (migrations 005/006). */
  static fromRows(zones: GeoRows['zones'], zonePoints: GeoRows['zonePoints'], places: GeoRows['places'], tasks: GeoRows['tasks']): GeoIndex {
    return GeoIndex.from(geofencesFromRows({ zones, zonePoints, places, tasks }));
  }

  get size(): number {
    return this.items.size;
  }

  /** Adds a geofence, replacing one of the same kind and id. An empty shape is only removed. */
  insert(fence: Geofence): void {
    this.remove(fence.kind, fence.id);
    const item = toItem(fence);
    if (!item) return;
    this.items.set(keyOf(fence.kind, fence.id), item);
    this.tree.insert(item);
  }

  remove(kind: GeoKind, id: number): boolean {
    const key = keyOf(kind, id);
    const item = this.items.get(key);
    if (!item) return false;
    this.items.delete(key);
    this.tree.remove(item); // by identity
    return true;
  }

  /**
   * The geofences of these owners that contain the point (order unspecified). With `trackerId`,
   * task zones count only when the task is assigned to that tracker.
   */
  query(ownerIds: readonly number[], lat: number, lng: number, trackerId?: number): GeoRef[] {
    const out: GeoRef[] = [];
    for (const { fence } of this.tree.search({ minX: lng, minY: lat, maxX: lng, maxY: lat })) {
      if (visible(fence, ownerIds, trackerId) && contains(fence.shape, lat, lng)) out.push({ kind: fence.kind, id: fence.id });
    }
    return out;
  }

  /** The geofences (visible to these owners) whose box lies within `radius` metres of the point, with their boxes: candidates for a nearby cache. */
  near(ownerIds: readonly number[], lat: number, lng: number, radius: number, trackerId?: number): Item[] {
    const out: Item[] = [];
    for (const item of this.tree.search(marginBox(lat, lng, radius))) if (visible(item.fence, ownerIds, trackerId)) out.push(item);
    return out;
  }

  /**
   * The geofences inside which the point is, or whose edge is at most `margin` metres away, with
   * that distance (what the visits stage needs for its hysteresis). Same filters as `query`.
   */
  probe(ownerIds: readonly number[], lat: number, lng: number, margin: number, trackerId?: number): GeoHit[] {
    const out: GeoHit[] = [];
    for (const { fence } of this.tree.search(marginBox(lat, lng, margin))) {
      if (!visible(fence, ownerIds, trackerId)) continue;
      const { inside, distance } = edgeDistance(fence.shape, lat, lng);
      if (inside || distance <= margin) out.push({ kind: fence.kind, id: fence.id, inside, distance });
    }
    return out;
  }
}

function visible(f: Geofence, ownerIds: readonly number[], trackerId: number | undefined): boolean {
  if (!ownerIds.includes(f.ownerId)) return false;
  return f.kind !== 'task' || trackerId === undefined || f.trackerId === trackerId;
}

function toItem(fence: Geofence): Item | null {
  const box = shapeBox(fence.shape);
  return box && new Item(box.minX, box.minY, box.maxX, box.maxY, fence);
}
