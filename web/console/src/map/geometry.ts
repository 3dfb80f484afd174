/** Small geometry on the sphere's local scale for drawing zones (metres near a latitude). */
const M_PER_DEG_LAT = 111_320;

/** A circle of `radius` metres as a polygon (48 sides). */
export function circle(lat: number, lng: number, radius: number): GeoJSON.Polygon {
  const ring: [number, number][] = [];
  const dLat = radius / M_PER_DEG_LAT;
  const dLng = dLat / Math.max(0.01, Math.cos((lat * Math.PI) / 180));
  for (let i = 0; i <= 48; i++) {
    const a = (2 * Math.PI * i) / 48;
    ring.push([lng + dLng * Math.cos(a), lat + dLat * Math.sin(a)]);
  }
  return { type: 'Polygon', coordinates: [ring] };
}

/** Distance in metres between two nearby points (equirectangular: exact enough for a radius drawn by hand). */
export function metres(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const k = Math.cos((((a.lat + b.lat) / 2) * Math.PI) / 180);
  return Math.hypot((b.lat - a.lat) * M_PER_DEG_LAT, (b.lng - a.lng) * M_PER_DEG_LAT * k);
}

/**
 * A MapLibre line width that is `['get', prop]` metres wide at every zoom: pixels per metre double
 * with each zoom level (512-pixel tiles), scaled by the feature's latitude (`lat` property).
 */
export function metresWide(prop: string): unknown {
  const atZoom = (z: number) => ['/', ['*', ['get', prop], 2 ** z], ['*', (40_075_016.686 / 512), ['cos', ['*', ['get', 'lat'], Math.PI / 180]]]];
  return ['interpolate', ['exponential', 2], ['zoom'], 0, atZoom(0), 24, atZoom(24)];
}
