/**
 * map_layer/upload (issue 13, docs/map-layers.md): the file is checked in the upload worker
 * (src/imports/map-layer.ts), then stored under the tariff's quota of layers. The quota is
 * checked before the file is read (no work for a user who cannot store it) and again in the
 * transaction of the insert (two uploads racing: transactions run one after the other).
 */
import { DomainError } from '../core/errors.ts';
import type { UploadedFile } from '../core/upload.ts';
import type { DataStore } from '../store/contract.ts';
import type { Store } from '../store/index.ts';
import type { UserRow } from '../store/users.ts';
import { inlineUploads, type UploadRunner } from './upload-pool.ts';

export interface LayerDeps {
  store: Store;
  uploads?: UploadRunner;
  now: () => number;
}

export async function uploadLayer(deps: LayerDeps, owner: UserRow, file: UploadedFile, label: string): Promise<number> {
  const data = deps.store.data;
  await checkLayerQuota(data, owner);
  const result = await (deps.uploads ?? inlineUploads).run({ kind: 'map-layer', file: { filename: file.filename, mimetype: file.mimetype, data: file.data } });
  if (!('kml' in result)) throw new Error('map_layer/upload: the worker answered no KML');
  return data.transaction(async (tx) => {
    await checkLayerQuota(tx, owner);
    return tx.mapLayers.create(owner.id, label, result.kml, deps.now());
  });
}

/** 268 when the owner already has as many layers as the tariff's max_map_layers. */
async function checkLayerQuota(data: DataStore, owner: UserRow): Promise<void> {
  const max = (await data.tariffs.get(owner.tariff_id))?.max_map_layers ?? 0;
  const current = await data.mapLayers.count(owner.id);
  if (current >= max) throw new DomainError(268, { limit: max }, `Over quota: the tariff allows ${max} map layers, ${current} exist`);
}
