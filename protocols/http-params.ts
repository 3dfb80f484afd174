/** Query parameters of an HTTP protocol's request: the URI's query, or a form body when it has none. */
import { DecodeError, type HttpRequest } from './types.ts';

export function requestParams(req: HttpRequest, name: string, maxBody = 65536): URLSearchParams {
  if (req.body.length > maxBody) throw new DecodeError(`${name}: body too large`);
  const q = req.uri.indexOf('?');
  const params = new URLSearchParams(q >= 0 ? req.uri.slice(q + 1) : '');
  return params.size || !req.body.length ? params : new URLSearchParams(req.body.toString('latin1'));
}

/**
 * The inner text of each `<tag ...>...</tag>` element in a flat XML document (no nesting of the same
 * tag, no CDATA): enough for the small fixed documents trackers post. At most `max` elements.
 */
export function xmlElements(xml: string, tag: string, max = 1000): string[] {
  const out: string[] = [];
  const close = `</${tag}>`;
  // indexOf rather than a lazy regex: an element that never closes ends the scan instead of making
  // every later start rescan the rest of the document
  for (let at = xml.indexOf(`<${tag}`); at >= 0 && out.length < max; at = xml.indexOf(`<${tag}`, at)) {
    const next = xml[at + tag.length + 1];
    const open = xml.indexOf('>', at);
    if (open < 0) break;
    if (next !== '>' && !/\s/.test(next ?? '')) {
      at = open;
      continue; // a longer tag name with the same start (<messageList>)
    }
    const end = xml.indexOf(close, open);
    if (end < 0) break;
    out.push(xml.slice(open + 1, end));
    at = end + close.length;
  }
  return out;
}

/** The trimmed text of the first `<tag>` in `xml`, entities `&amp; &lt; &gt; &quot; &apos;` resolved. */
export function xmlValue(xml: string, tag: string): string | undefined {
  const v = xmlElements(xml, tag, 1)[0];
  return v?.trim().replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e]!);
}

/** One part of a `multipart/form-data` body. */
export interface FormPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

/**
 * The parts of a `multipart/form-data` body (the boundary from `contentType`), or undefined when the
 * body is not one. At most `max` parts.
 */
export function multipartParts(body: Buffer, contentType: string | undefined, max = 64): FormPart[] | undefined {
  const boundary = /boundary="?([^";,\s]{1,70})"?/i.exec(contentType ?? '')?.[1];
  if (!contentType?.toLowerCase().startsWith('multipart/form-data') || !boundary) return undefined;
  const delimiter = Buffer.from(`--${boundary}`, 'latin1');
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  while (at >= 0 && parts.length < max) {
    at += delimiter.length;
    if (body[at] === 0x2d && body[at + 1] === 0x2d) break; // closing delimiter
    const headersEnd = body.indexOf('\r\n\r\n', at, 'latin1');
    if (headersEnd < 0) return undefined;
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`, 'latin1'), headersEnd + 4);
    if (next < 0) return undefined;
    const headers = body.toString('latin1', at, headersEnd);
    const disposition = /content-disposition:\s*form-data([^\r\n]*)/i.exec(headers)?.[1] ?? '';
    const name = /;\s*name="([^"]*)"/i.exec(disposition)?.[1];
    if (name !== undefined) {
      const part: FormPart = { name, data: body.subarray(headersEnd + 4, next) };
      const filename = /;\s*filename="([^"]*)"/i.exec(disposition)?.[1];
      if (filename !== undefined) part.filename = filename;
      const type = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1];
      if (type) part.contentType = type.trim();
      parts.push(part);
    }
    at = next + 2;
  }
  return parts;
}
