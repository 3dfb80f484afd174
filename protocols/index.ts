/** The protocol registry: every protocol the gateway listens for, by name. */
import type { Protocol } from './types.ts';
import { protocol as egts } from './egts.ts';
import { protocol as galileo } from './galileo.ts';
import { protocol as gl200 } from './gl200.ts';
import { protocol as gps103 } from './gps103.ts';
import { protocol as gt06 } from './gt06.ts';
import { protocol as h02 } from './h02.ts';
import { protocol as jt808 } from './jt808.ts';
import { protocol as meitrack } from './meitrack.ts';
import { protocol as osmand } from './osmand.ts';
import { protocol as ruptela } from './ruptela.ts';
import { protocol as suntech } from './suntech.ts';
import { protocol as teltonika } from './teltonika.ts';
import { protocol as tk103 } from './tk103.ts';
import { protocol as watch } from './watch.ts';
import { protocol as wialon } from './wialon.ts';

export const PROTOCOLS: ReadonlyMap<string, Protocol> = new Map(
  [teltonika, gt06, h02, gl200, gps103, tk103, meitrack, suntech, jt808, ruptela, wialon, osmand, watch, galileo, egts].map((p) => [p.name, p]),
);

export function protocolByName(name: string): Protocol | undefined {
  return PROTOCOLS.get(name);
}
