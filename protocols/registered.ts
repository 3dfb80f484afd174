/**
 * Every protocol the gateway speaks, one line each: adding a protocol is its module plus one line here.
 * The export name is the protocol's name (a test checks it). Ports, listeners, the CLI's check, the
 * table in docs/protocols.md and the protocol tests all derive from this list (see ./index.ts).
 */
export { protocol as aplicom } from './aplicom/index.ts';
export { protocol as dmt } from './dmt.ts';
export { protocol as egts } from './egts.ts';
export { protocol as flespi } from './flespi.ts';
export { protocol as galileo } from './galileo.ts';
export { protocol as gl200 } from './gl200/index.ts';
export { protocol as gotop } from './gotop.ts';
export { protocol as gps103 } from './gps103.ts';
export { protocol as gpsgate } from './gpsgate.ts';
export { protocol as gt02 } from './gt02.ts';
export { protocol as gt06 } from './gt06/index.ts';
export { protocol as h02 } from './h02.ts';
export { protocol as jt600 } from './jt600.ts';
export { protocol as jt808 } from './jt808/index.ts';
export { protocol as laipac } from './laipac.ts';
export { protocol as meitrack } from './meitrack.ts';
export { protocol as osmand } from './osmand.ts';
export { protocol as pt60 } from './pt60.ts';
export { protocol as ruptela } from './ruptela.ts';
export { protocol as startek } from './startek.ts';
export { protocol as suntech } from './suntech.ts';
export { protocol as t800x } from './t800x.ts';
export { protocol as teltonika } from './teltonika/index.ts';
export { protocol as tk103 } from './tk103.ts';
export { protocol as tlt2h } from './tlt2h.ts';
export { protocol as topin } from './topin.ts';
export { protocol as tramigo } from './tramigo.ts';
export { protocol as upro } from './upro.ts';
export { protocol as watch } from './watch.ts';
export { protocol as wialon } from './wialon.ts';
