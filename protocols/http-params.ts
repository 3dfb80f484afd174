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
