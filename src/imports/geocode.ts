/**
 * Geocoding for entities and imports (issue 4): "every place, zone, task and employee that has
 * coordinates but no address gets one" (reverse), and batch rows with an address but no
 * coordinates are located by the address (search). A failing provider never fails the call.
 */
import type { GeocoderType, Geocoder } from '../geocoder/types.ts';
import type { RowError } from './batch.ts';

/** The address to store: `given` when not empty, else the geocoder's for the point ('' when unknown). */
export async function addressFor(geocoder: Geocoder, lat: number, lng: number, given: string, type?: GeocoderType): Promise<string> {
  if (given.trim() !== '') return given;
  try {
    return (await geocoder.reverse(lat, lng, type ? { type } : undefined))?.address ?? '';
  } catch {
    return '';
  }
}

/**
 * Coordinates of a batch row: `coords` when given, else the best match of the address; records
 * the row error when neither leads anywhere. `address` is the cell (may be '').
 */
export async function locateRow(
  geocoder: Geocoder,
  coords: { lat: number; lng: number } | undefined,
  address: string,
  errors: RowError[],
  type?: GeocoderType,
): Promise<{ lat: number; lng: number } | undefined> {
  if (coords) return coords;
  if (address === '') {
    if (!errors.some((e) => e.parameter === 'lat' || e.parameter === 'lng')) errors.push({ parameter: 'lat', error: 'lat and lng are required when no address is given' });
    return undefined;
  }
  if (errors.some((e) => e.parameter === 'lat' || e.parameter === 'lng')) return undefined;
  try {
    const [best] = await geocoder.search(address, type ? { type } : undefined);
    if (best) return { lat: best.lat, lng: best.lng };
    errors.push({ parameter: 'address', error: 'the geocoder found no such address; give lat and lng' });
  } catch {
    errors.push({ parameter: 'address', error: 'the geocoder is unavailable; give lat and lng' });
  }
  return undefined;
}
