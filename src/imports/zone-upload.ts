/**
 * zone/upload (KML, KMZ): the file is unzipped, parsed and turned into zones in the upload worker;
 * this thread fills addresses and stores the zones in batches, yielding to other calls between
 * them (issue 10, item 9), shown all at once by the last transaction (issue 23: src/imports/staging.ts).
 * Rules: docs/places-zones.md.
 */
import { DomainError } from '../core/errors.ts';
import type { UploadedFile } from '../core/upload.ts';
import type { DataStore } from '../store/contract.ts';
import type { UserRow } from '../store/users.ts';
import type { ZoneInput, ZonePoint } from '../store/zones.ts';
import { addressFor } from './geocode.ts';
import { zoneAnchor } from './geometry.ts';
import { Pacer, yieldToOthers } from './pacing.ts';
import type { ImportDeps } from './places.ts';
import { stagedUpload } from './staging.ts';
import { inlineUploads } from './upload-pool.ts';
import { unpackPoints } from './upload-tasks.ts';

/** One transaction stores at most this many zones, or this many points (a few ms each). */
export const ZONE_BATCH_ZONES = 200;
export const ZONE_BATCH_POINTS = 5000;

type Answer = { preview: Uint8Array } | { ids: number[] };

export async function uploadZones(deps: ImportDeps, owner: UserRow, file: UploadedFile, opts: { default_radius: number; dry_run: boolean }): Promise<Answer> {
  const result = await (deps.uploads ?? inlineUploads).run({
    kind: 'kml',
    file: { filename: file.filename, mimetype: file.mimetype, data: file.data },
    defaultRadius: opts.default_radius,
    preview: opts.dry_run,
  });
  if ('preview' in result) return result;
  if (!('packed' in result)) throw new Error('zone/upload: the worker answered no zones');
  const { packed } = result;
  const data = deps.store.data;
  await checkZoneQuota(data, owner, packed.zones.length);

  const pacer = new Pacer();
  const rows: Array<{ zone: ZoneInput; start: number; count: number }> = [];
  for (const k of packed.zones) {
    await pacer.step();
    const { start, count, ...zone } = k;
    const at = zoneAnchor(k.center, undefined) ?? meanOf(packed.coords, start, count);
    rows.push({ zone: { ...zone, color: '27A9E3', address: await addressFor(deps.geocoder, at.lat, at.lng, '') }, start, count });
  }

  // Batches, each its own transaction, invisible until the last one shows them all (staging.ts).
  const ids: number[] = [];
  await stagedUpload(deps.store, owner.id, 'zone', (deps.now ?? Date.now)(), {
    async write(uploadId) {
      for (let i = 0; i < rows.length; ) {
        const batch: Array<{ zone: ZoneInput; points?: ZonePoint[] }> = [];
        let points = 0;
        for (; i < rows.length && batch.length < ZONE_BATCH_ZONES && (batch.length === 0 || points + rows[i].count <= ZONE_BATCH_POINTS); i++) {
          batch.push({ zone: rows[i].zone, points: unpackPoints(packed, rows[i].start, rows[i].count) });
          points += rows[i].count;
        }
        ids.push(...(await data.zones.stage(uploadId, batch)));
        await yieldToOthers();
      }
    },
    // Again at the commit: another upload may have stored zones meanwhile.
    commit: (_uploadId, tx) => checkZoneQuota(tx, owner, ids.length),
  });
  return { ids };
}

async function checkZoneQuota(data: DataStore, owner: UserRow, adding: number): Promise<void> {
  const max = (await data.tariffs.get(owner.tariff_id))?.max_zones ?? 0;
  const current = await data.zones.count(owner.id);
  if (current + adding > max) throw new DomainError(268, { limit: max }, `Over quota: the tariff allows ${max} zones, ${current} exist`);
}

function meanOf(coords: Float64Array, start: number, count: number): { lat: number; lng: number } {
  let lat = 0;
  let lng = 0;
  for (let i = start; i < start + count; i++) {
    lat += coords[i * 2];
    lng += coords[i * 2 + 1];
  }
  return { lat: lat / count, lng: lng / count };
}
