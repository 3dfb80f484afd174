/**
 * Every protocol the gateway speaks, one line each: adding a protocol is its module plus one line here.
 * The export name is the protocol's name (a test checks it). Ports, listeners, the CLI's check, the
 * table in docs/protocols.md and the protocol tests all derive from this list (see ./index.ts).
 */
export { protocol as adm } from './adm.ts';
export { protocol as arnavi } from './arnavi.ts';
export { protocol as bce } from './bce/index.ts';
export { protocol as box } from './box.ts';
export { protocol as calamp } from './calamp.ts';
export { protocol as dualcam } from './dualcam.ts';
export { protocol as easytrack } from './easytrack.ts';
export { protocol as egts } from './egts.ts';
export { protocol as fifotrack } from './fifotrack.ts';
export { protocol as freematics } from './freematics.ts';
export { protocol as galileo } from './galileo.ts';
export { protocol as gl200 } from './gl200/index.ts';
export { protocol as gosafe } from './gosafe.ts';
export { protocol as gps103 } from './gps103.ts';
export { protocol as gt06 } from './gt06/index.ts';
export { protocol as h02 } from './h02.ts';
export { protocol as huasheng } from './huasheng.ts';
export { protocol as intellitrac } from './intellitrac.ts';
export { protocol as its } from './its.ts';
export { protocol as jmak } from './jmak.ts';
export { protocol as jt808 } from './jt808/index.ts';
export { protocol as l100 } from './l100.ts';
export { protocol as megastek } from './megastek.ts';
export { protocol as meiligao } from './meiligao.ts';
export { protocol as meitrack } from './meitrack.ts';
export { protocol as mictrack } from './mictrack.ts';
export { protocol as minifinder } from './minifinder.ts';
export { protocol as minifinder2 } from './minifinder2.ts';
export { protocol as osmand } from './osmand.ts';
export { protocol as piligrim } from './piligrim.ts';
export { protocol as ruptela } from './ruptela.ts';
export { protocol as starlink } from './starlink.ts';
export { protocol as suntech } from './suntech.ts';
export { protocol as t55 } from './t55.ts';
export { protocol as telic } from './telic.ts';
export { protocol as teltonika } from './teltonika/index.ts';
export { protocol as tk102 } from './tk102.ts';
export { protocol as tk103 } from './tk103.ts';
export { protocol as topflytech } from './topflytech.ts';
export { protocol as totem } from './totem.ts';
export { protocol as tr20 } from './tr20.ts';
export { protocol as trv } from './trv.ts';
export { protocol as v680 } from './v680.ts';
export { protocol as watch } from './watch.ts';
export { protocol as wialon } from './wialon.ts';
export { protocol as wondex } from './wondex.ts';
export { protocol as xexun } from './xexun.ts';
export { protocol as xirgo } from './xirgo.ts';
