/**
 * Every protocol the gateway speaks, one line each: adding a protocol is its module plus one line here.
 * The export name is the protocol's name (a test checks it). Ports, listeners, the CLI's check, the
 * table in docs/protocols.md and the protocol tests all derive from this list (see ./index.ts).
 */
export { protocol as atrack } from './atrack/index.ts';
export { protocol as castel } from './castel.ts';
export { protocol as cguard } from './cguard.ts';
export { protocol as eelink } from './eelink.ts';
export { protocol as egts } from './egts.ts';
export { protocol as galileo } from './galileo.ts';
export { protocol as gl100 } from './gl100.ts';
export { protocol as gl200 } from './gl200/index.ts';
export { protocol as gps103 } from './gps103.ts';
export { protocol as gt06 } from './gt06/index.ts';
export { protocol as h02 } from './h02.ts';
export { protocol as ivt401 } from './ivt401.ts';
export { protocol as jt808 } from './jt808/index.ts';
export { protocol as meitrack } from './meitrack.ts';
export { protocol as mobilogix } from './mobilogix.ts';
export { protocol as osmand } from './osmand.ts';
export { protocol as pt502 } from './pt502.ts';
export { protocol as ruptela } from './ruptela.ts';
export { protocol as suntech } from './suntech.ts';
export { protocol as taip } from './taip.ts';
export { protocol as teltonika } from './teltonika/index.ts';
export { protocol as tk103 } from './tk103.ts';
export { protocol as ulbotech } from './ulbotech.ts';
export { protocol as vt200 } from './vt200.ts';
export { protocol as watch } from './watch.ts';
export { protocol as wialon } from './wialon.ts';
