/**
 * zone/upload reader: a KML document (or a KMZ, a zip holding one) -> zones ready to create.
 * Point -> circle (radius default_radius), LineString -> sausage (radius default_radius),
 * Polygon -> polygon (outer boundary only), MultiGeometry -> one zone per geometry. Labels
 * follow the Document/Folder hierarchy: "Document / Folder / Sub / Placemark" (docs/places-zones.md).
 *
 * Uploaded XML is hostile until proven otherwise: any DTD (<!DOCTYPE, <!ENTITY) is refused before
 * parsing, so neither external entities nor entity expansion (billion laughs) can happen; nesting
 * deeper than MAX_XML_DEPTH is refused before parsing too (the parser and the walk recurse).
 * This runs in the upload worker (src/imports/upload-tasks.ts), off the event loop.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { DomainError } from '../core/errors.ts';
import type { ZonePoint, ZoneType } from '../store/zones.ts';
import { MAX_ZONE_POINTS, MIN_ZONE_POINTS } from './geometry.ts';
import { isZip, kmlEntry } from './kmz.ts';

/** An uploaded file as the worker receives it (the data crosses the thread boundary as bytes). */
export interface UploadBytes {
  filename: string;
  mimetype: string;
  data: Uint8Array;
}

export interface KmlZone {
  type: ZoneType;
  label: string;
  radius: number | null;
  center: { lat: number; lng: number } | null;
  points?: ZonePoint[];
}

/** Size of the KML text (inside a KMZ: inflated) and number of zones of one upload at most. */
export const MAX_KML_BYTES = 20 * 1024 * 1024;
export const MAX_KML_ZONES = 5000;
/** Points of all zones of one upload at most (5000 polygons of 100 points): bounds the storing time. */
export const MAX_KML_POINTS = 500_000;
/** Element nesting of an uploaded XML document at most (real KML needs ~10 plus its folders). */
export const MAX_XML_DEPTH = 64;
const KML_TYPES = new Set([
  'application/vnd.google-earth.kml+xml',
  'application/vnd.google-earth.kmz',
  'application/xml',
  'text/xml',
  'application/zip',
  'application/x-zip-compressed',
  'application/octet-stream',
  'text/plain',
  '',
]);

const invalid = (why: string) => new DomainError(242, {}, `Validation error: not valid KML: ${why}`);

/** The KML text of an uploaded .kml or .kmz; 234 for another kind of file, a broken zip or too many bytes. */
export function kmlText(file: UploadBytes): string {
  const type = file.mimetype.split(';')[0].trim().toLowerCase();
  if (!KML_TYPES.has(type) && !/\.km[lz]$/i.test(file.filename)) throw new DomainError(234, {}, `Invalid data format: expected a KML or KMZ file, got ${file.mimetype}`);
  let data = file.data;
  if (isZip(data)) {
    const kml = kmlEntry(data, MAX_KML_BYTES);
    if (!kml) throw invalid('the KMZ holds no .kml document');
    data = kml;
  }
  if (data.length > MAX_KML_BYTES) throw new DomainError(234, { max_bytes: MAX_KML_BYTES }, `Invalid data format: the KML is over ${MAX_KML_BYTES} bytes`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    throw invalid('not UTF-8 text');
  }
}

/**
 * 242 when elements nest deeper than `max`: one linear scan, no recursion, before the parser (which
 * recurses per level) sees the text. Comments, CDATA, processing instructions and quoted attribute
 * values are skipped; malformed markup is left to the validator.
 */
export function checkNesting(text: string, max = MAX_XML_DEPTH): void {
  let depth = 0;
  let i = text.indexOf('<');
  while (i >= 0 && i < text.length) {
    const next = text[i + 1];
    let end: number;
    if (text.startsWith('<!--', i)) end = closeAfter(text, '-->', i + 4);
    else if (text.startsWith('<![CDATA[', i)) end = closeAfter(text, ']]>', i + 9);
    else if (next === '?' || next === '!') end = text.indexOf('>', i + 2);
    else if (next === '/') {
      end = text.indexOf('>', i + 2);
      depth--;
    } else {
      end = tagEnd(text, i + 1);
      if (end > 0 && text[end - 1] !== '/' && ++depth > max) throw invalid(`elements nest deeper than ${max} levels`);
    }
    if (end < 0) return;
    i = text.indexOf('<', end + 1);
  }
}

/** Index of the last character of `close` found from `from`; -1 when none. */
function closeAfter(text: string, close: string, from: number): number {
  const at = text.indexOf(close, from);
  return at < 0 ? -1 : at + close.length - 1;
}

/** Index of the `>` closing a start tag, skipping quoted attribute values; -1 when none. */
function tagEnd(text: string, from: number): number {
  let quote = '';
  for (let j = from; j < text.length; j++) {
    const c = text[j];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return j;
  }
  return -1;
}

type XmlNode = Record<string, unknown>;
const tagOf = (n: XmlNode) => Object.keys(n).find((k) => k !== ':@')!;
const kids = (n: XmlNode) => (Array.isArray(n[tagOf(n)]) ? (n[tagOf(n)] as XmlNode[]) : []);
const kid = (nodes: XmlNode[], name: string) => nodes.find((n) => tagOf(n) === name);
const textOf = (nodes: XmlNode[]): string => nodes.map((n) => (tagOf(n) === '#text' ? String(n['#text']) : '')).join('').trim();
const childText = (nodes: XmlNode[], name: string) => {
  const n = kid(nodes, name);
  return n ? textOf(kids(n)) : '';
};

/** Zones of a KML document. 242 for what is not KML (or carries a DTD), 202 for too many points. */
export function parseKml(text: string, defaultRadius: number): KmlZone[] {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw invalid('DTDs and entity declarations are not accepted');
  checkNesting(text);
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw invalid(`${valid.err.msg} (line ${valid.err.line})`);
  const doc = new XMLParser({ preserveOrder: true, ignoreAttributes: true, removeNSPrefix: true, parseTagValue: false, trimValues: true, processEntities: true, htmlEntities: true }).parse(text) as XmlNode[];
  const root = doc.find((n) => tagOf(n) === 'kml');
  if (!root) throw invalid('the root element is not <kml>');
  const zones: KmlZone[] = [];
  let placemarks = 0;
  let points = 0;

  const coordinates = (s: string, where: string): Array<{ lat: number; lng: number }> =>
    s
      .replace(/\s*,\s*/g, ',')
      .split(/\s+/)
      .filter(Boolean)
      .map((tuple) => {
        const [lng, lat] = tuple.split(',').map(Number);
        if (!Number.isFinite(lat) || !Number.isFinite(lng) || lat < -90 || lat > 90 || lng < -180 || lng > 180) throw invalid(`bad coordinates "${tuple.slice(0, 40)}" in ${where}`);
        return { lat, lng };
      });

  const geometries = (nodes: XmlNode[]): XmlNode[] =>
    nodes.flatMap((n) => (tagOf(n) === 'MultiGeometry' ? geometries(kids(n)) : ['Point', 'LineString', 'Polygon'].includes(tagOf(n)) ? [n] : []));

  const toZone = (g: XmlNode, label: string): KmlZone => {
    const nodes = kids(g);
    const type = tagOf(g);
    if (type === 'Point') {
      const [c] = coordinates(childText(nodes, 'coordinates'), label);
      if (!c) throw invalid(`Point without coordinates in ${label}`);
      return { type: 'circle', label, radius: defaultRadius, center: c };
    }
    if (type === 'LineString') {
      const line = coordinates(childText(nodes, 'coordinates'), label).map((p) => ({ ...p, node: true }));
      if (line.length < 2) throw invalid(`LineString with fewer than 2 points in ${label}`);
      // The spec wants 3 points at least: a 2-point line gets its midpoint (same geometry).
      if (line.length === 2) line.splice(1, 0, { lat: (line[0].lat + line[1].lat) / 2, lng: (line[0].lng + line[1].lng) / 2, node: false });
      if (line.length > MAX_ZONE_POINTS.sausage) throw new DomainError(202, {}, `Too many points in a zone: ${label} has ${line.length}, a sausage zone at most ${MAX_ZONE_POINTS.sausage}`);
      return { type: 'sausage', label, radius: defaultRadius, center: null, points: line };
    }
    const outer = kid(nodes, 'outerBoundaryIs');
    const ring = outer && kid(kids(outer), 'LinearRing');
    const pts = coordinates(ring ? childText(kids(ring), 'coordinates') : '', label).map((p) => ({ ...p, node: false }));
    const last = pts.at(-1);
    if (pts.length > 1 && last!.lat === pts[0].lat && last!.lng === pts[0].lng) pts.pop();
    if (pts.length < MIN_ZONE_POINTS) throw invalid(`Polygon with fewer than ${MIN_ZONE_POINTS} distinct points in ${label}`);
    if (pts.length > MAX_ZONE_POINTS.polygon) throw new DomainError(202, {}, `Too many points in a zone: ${label} has ${pts.length}, a polygon at most ${MAX_ZONE_POINTS.polygon}`);
    return { type: 'polygon', label, radius: null, center: null, points: pts };
  };

  const walk = (nodes: XmlNode[], path: string[]) => {
    for (const n of nodes) {
      const tag = tagOf(n);
      if (tag === 'Document' || tag === 'Folder') {
        const name = childText(kids(n), 'name');
        walk(kids(n), name ? [...path, name] : path);
      } else if (tag === 'Placemark') {
        placemarks++;
        const name = childText(kids(n), 'name') || `Placemark ${placemarks}`;
        const geoms = geometries(kids(n));
        geoms.forEach((g, i) => {
          if (zones.length === MAX_KML_ZONES) throw new DomainError(234, { max_zones: MAX_KML_ZONES }, `Invalid data format: at most ${MAX_KML_ZONES} zones per file`);
          const zone = toZone(g, fitLabel([...path, geoms.length > 1 ? `${name} (${i + 1})` : name].join(' / ')));
          points += zone.points?.length ?? 0;
          if (points > MAX_KML_POINTS) throw new DomainError(234, { max_points: MAX_KML_POINTS }, `Invalid data format: at most ${MAX_KML_POINTS} zone points per file`);
          zones.push(zone);
        });
      }
    }
  };
  walk(kids(root), []);
  return zones;
}

/** Zone labels hold 200 characters: a longer path keeps its end (the placemark's own name). */
function fitLabel(s: string): string {
  return s.length <= 200 ? s : `…${s.slice(s.length - 199)}`;
}
