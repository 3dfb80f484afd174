/**
 * The map settings the server gives the console and the field app (GET /console/config.json; set by
 * FSM_MAP_* variables, README).
 */
export interface MapSettings {
  style_url: string | null;
  tiles_url: string | null;
  pmtiles_url: string | null;
  attribution: string | null;
  max_zoom: number;
}

export const OFFLINE: MapSettings = { style_url: null, tiles_url: null, pmtiles_url: null, attribution: null, max_zoom: 19 };

export async function loadMapSettings(): Promise<MapSettings> {
  try {
    const r = await fetch('/console/config.json');
    const body = (await r.json()) as { map?: MapSettings };
    return { ...OFFLINE, ...body.map };
  } catch {
    return OFFLINE;
  }
}
