/**
 * Image work for uploads and avatars, with sharp (libvips): what an image is (format, EXIF
 * orientation), its preview and avatar renditions. sharp is asynchronous and runs in libuv's
 * threads, never on the event loop; inputs are bounded in pixels, and at most IMAGE_JOBS run at once
 * so a burst of uploads cannot take every thread (docs/files.md).
 */
import sharp from 'sharp';

/** Largest image accepted, in pixels (a 12,000 x 8,000 panorama; a decompression bomb is refused). */
export const MAX_IMAGE_PIXELS = 100_000_000;
/** Longest side of a preview and side of an avatar, pixels. */
export const PREVIEW_SIDE = 320;
export const AVATAR_SIDE = 256;
const IMAGE_JOBS = 2;

/** Formats taken as images (SVG is not: served from our origin it could carry script). */
const MIME_OF: Record<string, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  heif: 'image/heif',
  avif: 'image/avif',
  tiff: 'image/tiff',
};

/** File name extensions of the image formats above (photo and signature fields, image files). */
export const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png', 'webp', 'gif', 'heic', 'heif', 'avif', 'tif', 'tiff'];

let running = 0;
const waiting: Array<() => void> = [];
async function slot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= IMAGE_JOBS) await new Promise<void>((r) => waiting.push(r));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

export interface ImageFacts {
  mimeType: string;
  /** EXIF orientation 1..8, or null when the image carries none. */
  orientation: number | null;
  width: number;
  height: number;
}

/** The image's facts, or null when the bytes are not an image of an accepted format. */
export function inspectImage(input: string | Buffer): Promise<ImageFacts | null> {
  return slot(async () => {
    try {
      const m = await sharp(input, { limitInputPixels: MAX_IMAGE_PIXELS }).metadata();
      const mime = m.format ? MIME_OF[m.format] : undefined;
      if (!mime || !m.width || !m.height || m.width * m.height > MAX_IMAGE_PIXELS) return null;
      return { mimeType: mime, orientation: m.orientation ?? null, width: m.width, height: m.height };
    } catch {
      return null;
    }
  });
}

/** A small JPEG, turned upright by the EXIF orientation, at most PREVIEW_SIDE on its longer side. */
export function writePreview(input: string, out: string): Promise<void> {
  return slot(async () => {
    await sharp(input, { limitInputPixels: MAX_IMAGE_PIXELS }).rotate().resize(PREVIEW_SIDE, PREVIEW_SIDE, { fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 75 }).toFile(out);
  });
}

/** An avatar: upright, cropped to a square of AVATAR_SIDE, JPEG. */
export function avatarJpeg(input: Buffer): Promise<Buffer> {
  return slot(() => sharp(input, { limitInputPixels: MAX_IMAGE_PIXELS }).rotate().resize(AVATAR_SIDE, AVATAR_SIDE, { fit: 'cover' }).jpeg({ quality: 85 }).toBuffer());
}
