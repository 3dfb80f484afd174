/** Map layers (spec: Map layer; Map layers, base path /map_layer). Designed details: docs/map-layers.md. */
import { z } from 'zod';
import { KML_MEDIA_TYPE } from '../imports/map-layer.ts';
import { uploadLayer } from '../imports/map-layer-upload.ts';
import { DomainError } from '../core/errors.ts';
import { defineCall, FileAnswer } from './kernel.ts';
import { filePart, label, uploadedFile } from './place.ts';
import { id } from './schemas.ts';

const notFound = (layerId: number) => new DomainError(201, {}, `Not found in the database: map layer ${layerId}`);

const read = defineCall({
  path: 'map_layer/read',
  summary: 'The KML document of a layer, as application/vnd.google-earth.kml+xml in UTF-8.',
  params: z.object({ id }),
  async handler({ services, owner, params }) {
    const kml = await services.store.data.mapLayers.kml(owner.id, params.id);
    if (kml === undefined) throw notFound(params.id);
    return new FileAnswer(kml, KML_MEDIA_TYPE);
  },
});

const list = defineCall({
  path: 'map_layer/list',
  summary: "The user's map layers ({id, label}) in id order.",
  params: z.object({}),
  async handler({ services, owner }) {
    return { list: await services.store.data.mapLayers.list(owner.id) };
  },
});

const upload = defineCall({
  path: 'map_layer/upload',
  summary: 'Store a KML (or KMZ: the KML inside) file as a new layer with a label; answers its id.',
  upload: true,
  params: z.object({ label, file: filePart }),
  async handler({ services, owner, params }) {
    return { id: await uploadLayer(services, owner, uploadedFile(params.file), params.label) };
  },
});

const update = defineCall({
  path: 'map_layer/update',
  summary: "Change a layer's label (its document is replaced by deleting and uploading again).",
  params: z.object({ layer: z.object({ id, label }) }),
  async handler({ services, owner, params }) {
    const { layer } = params;
    if (!(await services.store.data.mapLayers.rename(owner.id, layer.id, layer.label))) throw notFound(layer.id);
  },
});

const remove = defineCall({
  path: 'map_layer/delete',
  summary: 'Delete a layer.',
  params: z.object({ id }),
  async handler({ services, owner, params }) {
    if (!(await services.store.data.mapLayers.delete(owner.id, params.id))) throw notFound(params.id);
  },
});

export const mapLayerCalls = [read, list, upload, update, remove];
