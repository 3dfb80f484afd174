// Piscina entry of the telemetry workers: registers the TypeScript loader in the thread, then
// hands Piscina the processor (workers/telemetry.ts).
import { register } from 'tsx/esm/api';

register();
const processor = await import('./telemetry.ts');
export default processor.default;
