/**
 * How media files devices send are named under <data>/media (docs/gateway.md): a folder per device,
 * files named by their receive time. The gateway writes them, retention deletes old ones: one rule.
 */

/** The device's folder: its id with unsafe characters replaced, at most 64 characters. */
export const mediaFolder = (deviceId: string): string => deviceId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64) || 'unknown';

/** The receive-time stamp a file name starts with: `yyyyMMddTHHmmss` (UTC). */
export const mediaStamp = (ms: number): string => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\..*/, '');

const STAMP = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})-/;

/** The receive time of a media file by its name (`<stamp>-<hex>.<ext>`); undefined for other names. */
export function mediaReceived(name: string): number | undefined {
  const m = STAMP.exec(name);
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : undefined;
}
