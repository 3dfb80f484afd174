/**
 * The bytes of uploaded files under the data directory (docs/files.md):
 *   <data>/files/<2 hex>/<key>               the blob (key: 24 random hex digits, avatars + ".jpg")
 *   <data>/files/<2 hex>/<key>.preview.jpg   its preview (images)
 *   <data>/files/tmp/<random>.part           an upload being received
 * An upload is written to tmp and renamed into place only when complete, so an interrupted upload
 * never leaves a half file under a blob name. All file system work is asynchronous (fs.promises).
 */
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';

const KEY = /^[0-9a-f]{24}(\.jpg)?$/;

export class BlobStore {
  readonly root: string;
  readonly tmp: string;
  constructor(dataDir: string) {
    this.root = join(dataDir, 'files');
    this.tmp = join(this.root, 'tmp');
  }

  static newKey(suffix = ''): string {
    return randomBytes(12).toString('hex') + suffix;
  }
  static isKey(key: string): boolean {
    return KEY.test(key);
  }

  path(key: string): string {
    if (!KEY.test(key)) throw new Error(`not a blob key: ${key}`);
    return join(this.root, key.slice(0, 2), key);
  }
  previewPath(key: string): string {
    return `${this.path(key)}.preview.jpg`;
  }

  /**
   * Writes a stream to a temporary file, counting bytes; answers its path and size. On any error
   * (the client went away, a limit) the temporary file is removed and the error passed on.
   */
  async receive(source: Readable, limit: number, onOver: () => Error): Promise<{ tmp: string; size: number }> {
    await mkdir(this.tmp, { recursive: true });
    const tmp = join(this.tmp, `${randomBytes(8).toString('hex')}.part`);
    let size = 0;
    try {
      await pipeline(
        source,
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            size += chunk.length;
            if (size > limit) throw onOver();
            yield chunk;
          }
        },
        createWriteStream(tmp, { flags: 'wx' }),
      );
      return { tmp, size };
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
  }

  /** Moves a complete temporary file to its blob name (atomic within one file system). */
  async commit(tmp: string, key: string): Promise<string> {
    const to = this.path(key);
    await mkdir(join(this.root, key.slice(0, 2)), { recursive: true });
    await rename(tmp, to);
    return to;
  }

  async remove(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
    await rm(this.previewPath(key), { force: true });
  }

  async discard(tmp: string): Promise<void> {
    await rm(tmp, { force: true });
  }

  /** Every blob key on disk with its modification time (the collector's walk), and stale temporary files. */
  async *walk(): AsyncGenerator<{ key: string; mtimeMs: number }> {
    let dirs: string[];
    try {
      dirs = await readdir(this.root);
    } catch {
      return;
    }
    for (const d of dirs) {
      if (!/^[0-9a-f]{2}$/.test(d)) continue;
      for (const name of await readdir(join(this.root, d)).catch(() => [] as string[])) {
        if (!KEY.test(name)) continue;
        const st = await stat(join(this.root, d, name)).catch(() => null);
        if (st) yield { key: name, mtimeMs: st.mtimeMs };
      }
    }
  }

  /** Temporary files older than `before` (left by a crash mid-upload). */
  async staleTemps(before: number): Promise<string[]> {
    const out: string[] = [];
    for (const name of await readdir(this.tmp).catch(() => [] as string[])) {
      const st = await stat(join(this.tmp, name)).catch(() => null);
      if (st && st.mtimeMs < before) out.push(join(this.tmp, name));
    }
    return out;
  }
}
