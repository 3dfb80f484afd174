/**
 * Media files devices send (photos, voice notes), kept under <data>/media/<device id>/<name>.
 * A decoder returns them as data (`DecodeResult.media`); the gateway names each file before the
 * records are submitted (so the stored record refers to it), and writes it only after the commit,
 * with fs.promises (never on the event loop). A failed write is logged and counted; the records stay.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { DeviceRecord, MediaFile } from '../../protocols/types.ts';
import { mediaFolder, mediaStamp } from '../core/media.ts';

const SAFE = /[^A-Za-z0-9_.-]/g;

export interface MediaFiles {
  /** Files whose write failed since start. */
  readonly failures: number;
  /**
   * Names the files of one decoded frame and puts each name into its record's attribute.
   * Returns what writes them; call it once the records are committed.
   */
  prepare(deviceId: string, records: DeviceRecord[], media: MediaFile[]): () => Promise<void>;
}

export function fileMediaStore(dir: string, now: () => number, log?: (level: 'error', msg: string, data?: Record<string, unknown>) => void): MediaFiles {
  let failures = 0;
  return {
    get failures() {
      return failures;
    },
    prepare(deviceId, records, media) {
      const device = mediaFolder(deviceId);
      const stamp = mediaStamp(now());
      const files = media.flatMap((m) => {
        const record = records[m.record];
        if (!record) return [];
        const name = `${device}/${stamp}-${randomBytes(4).toString('hex')}.${m.extension.replace(SAFE, '').slice(0, 8) || 'bin'}`;
        record.attributes[m.attribute] = name;
        return [{ name, data: m.data }];
      });
      return async () => {
        for (const f of files) {
          try {
            await mkdir(join(dir, device), { recursive: true });
            // Written beside and renamed: a reader never sees a half-written file under its name.
            await writeFile(join(dir, `${f.name}.part`), f.data);
            await rename(join(dir, `${f.name}.part`), join(dir, f.name));
          } catch (e) {
            failures++;
            log?.('error', 'media file not written', { file: f.name, error: String((e as Error)?.message ?? e) });
          }
        }
      };
    },
  };
}
