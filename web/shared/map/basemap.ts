/**
 * The basemap under the maps of the console and the field app, chosen by the server's settings: a MapLibre style URL,
 * a raster tile URL, a self-hosted PMTiles file, or (nothing set) the offline basemap the build
 * ships: Natural Earth 1:50m land, coastlines and borders and major places (web/console/build.ts).
 * No style here needs glyphs: the console draws place names as HTML labels
 * (web/console/src/map/html-labels.ts), so nothing is fetched from the internet.
 */
import type { LayerSpecification, StyleSpecification } from 'maplibre-gl';
import type { MapSettings } from './config.ts';

export const COLORS = { water: '#c8dcef', land: '#f4f1ea', border: '#9a8f97', coast: '#7d9cbd', road: '#ffffff', roadMajor: '#f3c98b', place: '#4a4a4a' };

const emptyStyle = (sources: StyleSpecification['sources'], layers: LayerSpecification[]): StyleSpecification => ({ version: 8, sources, layers });

export function offlineStyle(): StyleSpecification {
  const src = (file: string) => ({ type: 'geojson' as const, data: `${location.origin}/basemap/${file}`, attribution: 'Natural Earth' });
  return emptyStyle(
    { land: src('land.json'), borders: src('borders.json'), places: src('places.json') },
    [
      { id: 'water', type: 'background', paint: { 'background-color': COLORS.water } },
      { id: 'land', type: 'fill', source: 'land', paint: { 'fill-color': COLORS.land } },
      { id: 'coastline', type: 'line', source: 'land', paint: { 'line-color': COLORS.coast, 'line-width': ['interpolate', ['linear'], ['zoom'], 1, 0.5, 8, 1.5] } },
      { id: 'borders', type: 'line', source: 'borders', paint: { 'line-color': COLORS.border, 'line-width': ['interpolate', ['linear'], ['zoom'], 1, 0.5, 8, 1.5], 'line-dasharray': [3, 2] } },
      {
        id: 'places',
        type: 'circle',
        source: 'places',
        // Larger places first: a city of 5 million from zoom 2, of 200,000 from zoom 6.
        filter: ['>=', ['get', 'population'], ['interpolate', ['exponential', 0.5], ['zoom'], 2, 5_000_000, 4, 1_000_000, 6, 200_000]],
        paint: { 'circle-radius': ['case', ['get', 'capital'], 3.5, 2.5], 'circle-color': COLORS.place, 'circle-stroke-color': '#fff', 'circle-stroke-width': 1 },
      },
    ],
  );
}

function rasterStyle(tiles: string, attribution: string | null, maxzoom: number): StyleSpecification {
  return emptyStyle({ base: { type: 'raster', tiles: [tiles], tileSize: 256, maxzoom, attribution: attribution ?? '' } }, [{ id: 'base', type: 'raster', source: 'base' }]);
}

/** Vector PMTiles in the Protomaps basemap schema: land, water, land use, roads and boundaries, no labels. */
function protomapsStyle(url: string, attribution: string | null): StyleSpecification {
  const s = 'base';
  return emptyStyle({ [s]: { type: 'vector', url, attribution: attribution ?? '' } }, [
    { id: 'water-bg', type: 'background', paint: { 'background-color': COLORS.water } },
    { id: 'earth', type: 'fill', source: s, 'source-layer': 'earth', paint: { 'fill-color': COLORS.land } },
    { id: 'landuse', type: 'fill', source: s, 'source-layer': 'landuse', paint: { 'fill-color': '#e4ecd8', 'fill-opacity': 0.6 } },
    { id: 'water', type: 'fill', source: s, 'source-layer': 'water', paint: { 'fill-color': COLORS.water } },
    { id: 'boundaries', type: 'line', source: s, 'source-layer': 'boundaries', paint: { 'line-color': COLORS.border, 'line-dasharray': [3, 2] } },
    { id: 'roads', type: 'line', source: s, 'source-layer': 'roads', paint: { 'line-color': ['match', ['get', 'kind'], ['highway', 'major_road'], COLORS.roadMajor, COLORS.road], 'line-width': ['interpolate', ['exponential', 1.6], ['zoom'], 6, 0.5, 16, 8] } },
    { id: 'buildings', type: 'fill', source: s, 'source-layer': 'buildings', minzoom: 14, paint: { 'fill-color': '#ddd6cc' } },
  ]);
}

/** The style for these settings; PMTiles are read with range requests through the pmtiles:// protocol. */
export async function basemapStyle(settings: MapSettings): Promise<{ style: StyleSpecification | string; offline: boolean }> {
  if (settings.style_url || settings.pmtiles_url) {
    const [{ Protocol, PMTiles }, maplibre] = await Promise.all([import('pmtiles'), import('maplibre-gl')]);
    const protocol = new Protocol();
    maplibre.addProtocol('pmtiles', protocol.tile);
    if (settings.style_url) return { style: settings.style_url, offline: false };
    const url = new URL(settings.pmtiles_url!, location.origin).href;
    const header = await new PMTiles(url).getHeader();
    // Tile type 1 is vector (MVT); 2-5 are raster images.
    if (header.tileType === 1) return { style: protomapsStyle(`pmtiles://${url}`, settings.attribution), offline: false };
    return { style: rasterStyle(`pmtiles://${url}/{z}/{x}/{y}`, settings.attribution, header.maxZoom), offline: false };
  }
  if (settings.tiles_url) return { style: rasterStyle(settings.tiles_url, settings.attribution, settings.max_zoom), offline: false };
  return { style: offlineStyle(), offline: true };
}
