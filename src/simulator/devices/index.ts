/** The protocols the simulator speaks, by the names the gateway uses. */
import type { DeviceProtocol } from '../types.ts';
import { gt06 } from './gt06.ts';
import { osmand } from './osmand.ts';
import { teltonika } from './teltonika.ts';
import { wialon } from './wialon.ts';

export const DEVICE_PROTOCOLS: Readonly<Record<string, DeviceProtocol>> = Object.freeze({ teltonika, gt06, wialon, osmand });
