/** Media files devices send (photos, voice notes), kept under <data>/media/<device id>/. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { MediaStore } from '../../protocols/types.ts';

const SAFE = /[^A-Za-z0-9_.-]/g;

export function fileMediaStore(dir: string): MediaStore {
  return {
    store(deviceId, data, extension) {
      const device = deviceId.replace(SAFE, '_').slice(0, 64) || 'unknown';
      const name = `${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}-${randomBytes(4).toString('hex')}.${extension.replace(SAFE, '').slice(0, 8) || 'bin'}`;
      mkdirSync(join(dir, device), { recursive: true });
      writeFileSync(join(dir, device, name), data);
      return `${device}/${name}`;
    },
  };
}
