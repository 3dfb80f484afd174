/**
 * KML for track/download (OGC KML 2.2). split: one Folder per track with a start and an end
 * Placemark (a Point each) and the track line (a LineString); otherwise one line of all points.
 * Names and descriptions carry times in the user's zone; TimeSpan/TimeStamp are UTC, as KML wants.
 * Pure: the document is returned as a string; KMZ (a zip holding doc.kml) is the caller's part.
 */

export interface KmlPoint {
  lat: number;
  lng: number;
  alt: number | null;
}

export interface KmlPlace extends KmlPoint {
  /** ms UTC */
  time: number;
  /** e.g. "2025-05-01 10:00:00, Main Street 1" (user zone). */
  description: string;
}

export interface KmlTrack {
  name: string;
  begin: number;
  end: number;
  start: KmlPlace;
  finish: KmlPlace;
  line: KmlPoint[];
}

export interface KmlDocument {
  name: string;
  /** split=true */
  tracks?: KmlTrack[];
  /** split=false: one line. */
  line?: KmlPoint[];
}

const LINE_STYLE = '<Style id="track"><LineStyle><color>ffe3a927</color><width>4</width></LineStyle></Style>';

/** Text content and attribute values: the five XML specials, and no control characters XML forbids. */
export function xmlText(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const coord = (p: KmlPoint) => (p.alt === null ? `${p.lng},${p.lat}` : `${p.lng},${p.lat},${Math.round(p.alt)}`);

export function trackKml(doc: KmlDocument): string {
  const parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2">\n<Document>\n', `<name>${xmlText(doc.name)}</name>\n`, LINE_STYLE, '\n'];
  for (const t of doc.tracks ?? []) parts.push(folder(t));
  if (doc.line) parts.push(linePlacemark(doc.name, doc.line));
  parts.push('</Document>\n</kml>\n');
  return parts.join('');
}

function folder(t: KmlTrack): string {
  return [
    `<Folder>\n<name>${xmlText(t.name)}</name>\n`,
    `<TimeSpan><begin>${iso(t.begin)}</begin><end>${iso(t.end)}</end></TimeSpan>\n`,
    place('Start', t.start),
    place('End', t.finish),
    t.line.length >= 2 ? linePlacemark(t.name, t.line) : '',
    '</Folder>\n',
  ].join('');
}

function place(name: string, p: KmlPlace): string {
  return `<Placemark><name>${name}</name><description>${xmlText(p.description)}</description><TimeStamp><when>${iso(p.time)}</when></TimeStamp><Point><coordinates>${coord(p)}</coordinates></Point></Placemark>\n`;
}

/** A LineString needs two positions; a single point still becomes a (degenerate) line of two. */
function linePlacemark(name: string, line: KmlPoint[]): string {
  const pts = line.length === 1 ? [line[0], line[0]] : line;
  if (!pts.length) return '';
  return `<Placemark><name>${xmlText(name)}</name><styleUrl>#track</styleUrl><LineString><tessellate>1</tessellate><altitudeMode>clampToGround</altitudeMode><coordinates>${pts.map(coord).join(' ')}</coordinates></LineString></Placemark>\n`;
}
