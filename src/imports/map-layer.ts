/**
 * map_layer/upload reader (issue 13, docs/map-layers.md): a .kml or .kmz file -> the KML text a
 * layer stores and map_layer/read serves as-is. Unlike zone/upload nothing is extracted: the
 * document is checked to be well-formed KML and kept whole.
 *
 * Hostile XML is refused before the parser sees it, as for zones (src/imports/kml.ts): any DTD or
 * entity declaration (so no external entity and no entity expansion), nesting deeper than
 * MAX_XML_DEPTH; a KMZ is inflated with a bound (src/imports/kmz.ts: zip bombs stop at the bound).
 * This runs in the upload worker (src/imports/upload-tasks.ts), off the event loop.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { DomainError } from '../core/errors.ts';
import { checkNesting, type UploadBytes } from './kml.ts';
import { isZip, kmlEntry } from './kmz.ts';

/** Size of one layer's KML text at most (inside a KMZ: once inflated). */
export const MAX_LAYER_BYTES = 5 * 1024 * 1024;
/** The media type map_layer/read answers with. */
export const KML_MEDIA_TYPE = 'application/vnd.google-earth.kml+xml; charset=utf-8';

/** Media types that name a KML or KMZ file. */
const LAYER_TYPES = new Set(['application/vnd.google-earth.kml+xml', 'application/vnd.google-earth.kmz', 'application/xml', 'text/xml', 'application/zip', 'application/x-zip-compressed']);
/** Types that name no format (what browsers send for an unknown extension): the file name decides. */
const GENERIC_TYPES = new Set(['application/octet-stream', 'binary/octet-stream', '']);

const invalid = (why: string, extra: Record<string, unknown> = {}) => new DomainError(242, extra, `Validation error: not valid KML: ${why}`);

/** 234 unless the part's media type names KML or KMZ (a generic type: unless the name ends in .kml or .kmz). */
export function checkLayerType(file: { filename: string; mimetype: string }): void {
  const type = file.mimetype.split(';')[0].trim().toLowerCase();
  if (LAYER_TYPES.has(type) || (GENERIC_TYPES.has(type) && /\.km[lz]$/i.test(file.filename))) return;
  throw new DomainError(234, {}, `Invalid data format: expected a KML or KMZ file (${[...LAYER_TYPES][0]}), got ${file.mimetype || 'no media type'}`);
}

/** The validated KML text of an uploaded layer: 234 for another media type or a broken zip, 242 for what is not KML. */
export function layerKml(file: UploadBytes): string {
  checkLayerType(file);
  let data = file.data;
  if (isZip(data)) {
    let kml: Uint8Array | undefined;
    try {
      kml = kmlEntry(data, MAX_LAYER_BYTES);
    } catch (e) {
      // Inflating past the bound (a zip bomb or just too large) is a size error like a large .kml.
      if (e instanceof DomainError && e.extra.max_bytes !== undefined) throw tooLarge();
      throw e;
    }
    if (!kml) throw invalid('the KMZ holds no .kml document');
    data = kml;
  }
  if (data.length > MAX_LAYER_BYTES) throw tooLarge();
  let text: string;
  try {
    // Fatal: a layer is served as UTF-8, so it must be UTF-8 (a BOM is dropped).
    text = new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    throw invalid('not UTF-8 text');
  }
  validateKml(text);
  return text;
}

function tooLarge(): DomainError {
  return invalid(`a layer holds at most ${MAX_LAYER_BYTES} bytes of KML`, { max_bytes: MAX_LAYER_BYTES });
}

/** 242 unless `text` is a well-formed XML document, without DTD, in UTF-8, whose root element is <kml>. */
export function validateKml(text: string): void {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw invalid('DTDs and entity declarations are not accepted');
  const declared = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/.exec(text)?.[1];
  if (declared && !/^utf-?8$/i.test(declared)) throw invalid(`the document declares the encoding ${declared}; layers are UTF-8`);
  checkNesting(text);
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw invalid(`${valid.err.msg} (line ${valid.err.line})`);
  // Only the root's name matters: entities are left unexpanded, values unparsed.
  const doc = new XMLParser({ preserveOrder: true, ignoreAttributes: true, removeNSPrefix: true, parseTagValue: false, processEntities: false }).parse(text) as Array<Record<string, unknown>>;
  const roots = doc.map((n) => Object.keys(n).find((k) => k !== ':@')).filter((k) => k && k !== '#text' && k !== '?xml' && k !== '#comment');
  if (roots.length !== 1 || roots[0] !== 'kml') throw invalid(`the root element is ${roots.length ? `<${roots[0]}>` : 'missing'}, not <kml>`);
}
