// Piscina entry of the upload workers (src/imports/upload-pool.ts): registers the TypeScript loader
// in the thread, then hands Piscina the task runner (workers/upload.ts).
import { register } from 'tsx/esm/api';

register();
const uploads = await import('./upload.ts');
export default uploads.default;
