/**
 * MapLibre 6 parses tiles and GeoJSON in a module worker it loads from a URL of its own; Vite
 * bundles that worker (with the code it shares with the main bundle) and gives its URL here.
 */
import { setWorkerUrl } from 'maplibre-gl';
import workerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?worker&url';

setWorkerUrl(workerUrl);
