/**
 * Stream framers shared by binary protocols: a frame between a start and an end byte with an
 * escape byte inside, and a frame whose length is a field of its header.
 */
import { bracketedFramer } from './text.ts';
import { DecodeError, FrameError, type Framer } from './types.ts';

/**
 * Frames run from `start` to `end` (both kept); inside, `escape` followed by a byte stands for that
 * byte minus `shift` (Maxtrack: 0x10 then b+0x20). Frames come out un-escaped.
 */
export function escapedFramer(name: string, start: number, end: number, escape: number, shift: number, max: number): Framer {
  const bracketed = bracketedFramer(name, start, end, max);
  return {
    next(buffer) {
      const f = bracketed.next(buffer);
      if (!f || !f.frame.includes(escape)) return f;
      const raw = f.frame;
      const out = Buffer.allocUnsafe(raw.length);
      let n = 0;
      for (let i = 0; i < raw.length; i++) out[n++] = raw[i] === escape && i + 2 < raw.length ? (raw[++i] - shift) & 0xff : raw[i];
      return { frame: out.subarray(0, n), consumed: f.consumed };
    },
  };
}

/** Bytes escaped for `escapedFramer`: each byte of `special` becomes `escape`, byte+`shift`. */
export function escapeBytes(data: Uint8Array, special: readonly number[], escape: number, shift: number): Buffer {
  const out: number[] = [];
  for (const b of data) {
    if (special.includes(b)) out.push(escape, (b + shift) & 0xff);
    else out.push(b);
  }
  return Buffer.from(out);
}

export interface LengthField {
  /** Offset of the length field from the frame start. */
  offset: number;
  /** Size of the length field in bytes (1, 2 or 4). */
  size: 1 | 2 | 4;
  littleEndian?: boolean;
  /**
   * Added to the header (offset + size) and the field's value to get the whole frame's length, as
   * Netty's length-field framer counts it (0: the field counts the bytes after itself).
   */
  adjust: number;
  /** Bytes a frame must begin with (skipped garbage otherwise); absent: no check. */
  magic?: Buffer;
}

/** Frames whose total length is `offset + size + field + adjust`; a length under the header or over `max` is garbage. */
export function lengthFieldFramer(name: string, f: LengthField, max: number): Framer {
  const header = f.offset + f.size;
  return {
    next(buffer) {
      let start = 0;
      if (f.magic) {
        start = buffer.indexOf(f.magic);
        if (start < 0) {
          if (buffer.length > max) throw new FrameError(`${name}: no message start`);
          return null;
        }
      }
      if (buffer.length - start < header) return null;
      const at = start + f.offset;
      const field =
        f.size === 1 ? buffer[at] : f.size === 2 ? (f.littleEndian ? buffer.readUInt16LE(at) : buffer.readUInt16BE(at)) : f.littleEndian ? buffer.readUInt32LE(at) : buffer.readUInt32BE(at);
      const length = header + field + f.adjust;
      if (length < header || length > max) throw new FrameError(`${name}: bad length ${length}`);
      if (buffer.length - start < length) return null;
      return { frame: buffer.subarray(start, start + length), consumed: start + length };
    },
  };
}

/**
 * One JSON object per frame, cut where its braces balance (braces inside strings do not count):
 * the generic JSON framing that hoopo, stb and teratrack devices share. Bytes before a `{` are skipped.
 */
export function jsonFramer(name: string, max: number): Framer {
  return {
    next(buffer) {
      const start = buffer.indexOf(0x7b);
      if (start < 0) {
        if (buffer.length > max) throw new FrameError(`${name}: no object start`);
        return null;
      }
      let depth = 0;
      let inString = false;
      const limit = Math.min(buffer.length, start + max);
      for (let i = start; i < limit; i++) {
        const b = buffer[i];
        if (inString) {
          if (b === 0x5c) i++; // the escaped character
          else if (b === 0x22) inString = false;
        } else if (b === 0x22) inString = true;
        else if (b === 0x7b) depth++;
        else if (b === 0x7d && --depth === 0) return { frame: buffer.subarray(start, i + 1), consumed: i + 1 };
      }
      if (buffer.length - start >= max) throw new FrameError(`${name}: object too long`);
      return null;
    },
  };
}

/** The JSON object a frame holds; anything else is a decode error. */
export function jsonObject(frame: Buffer, name: string): Record<string, unknown> {
  let root: unknown;
  try {
    root = JSON.parse(frame.toString('utf8'));
  } catch {
    throw new DecodeError(`${name}: bad JSON`);
  }
  if (!root || typeof root !== 'object' || Array.isArray(root)) throw new DecodeError(`${name}: not an object`);
  return root as Record<string, unknown>;
}

/** Frames of one fixed size (FlexComm): nothing to check, every `size` bytes is a frame. */
export function fixedLengthFramer(size: number): Framer {
  return {
    next(buffer) {
      return buffer.length < size ? null : { frame: buffer.subarray(0, size), consumed: size };
    },
  };
}
