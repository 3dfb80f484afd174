/** What the forms code needs, passed explicitly by the API, the field app's calls or a test. */
import type { FileLookup } from '../core/files.ts';
import type { Geocoder } from '../geocoder/types.ts';
import type { Store } from '../store/index.ts';

export interface FormDeps {
  store: Store;
  geocoder: Geocoder;
  now: () => number;
  /** How named files are looked up; default the files table (store.fileFacts.lookup). */
  files?: FileLookup;
}
