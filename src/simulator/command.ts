/**
 * `npm run fsm -- simulate ...`: option parsing, optional registration of the simulated trackers
 * in the local store, progress lines every few seconds and a summary. Ctrl-C stops early and
 * still prints the summary.
 */
import type { Store } from '../store/index.ts';
import { DEVICE_PROTOCOLS } from './devices/index.ts';
import { deviceIdsFor, runSimulation, SimulationOptionError, type SimulationStats } from './run.ts';

export const SIMULATE_USAGE =
  'simulate --protocol P --trackers N --interval S --duration S [--host H] [--port P] [--device-id-prefix D] [--records-per-packet N] [--register LOGIN] [--progress S]';

export const SIMULATE_OPTIONS = {
  protocol: { type: 'string' },
  trackers: { type: 'string' },
  interval: { type: 'string' },
  duration: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'device-id-prefix': { type: 'string' },
  'records-per-packet': { type: 'string' },
  register: { type: 'string' },
  progress: { type: 'string' },
} as const;

type Opts = Record<string, string | boolean | undefined>;

function number(o: Opts, name: string, def?: number): number {
  const raw = o[name];
  if (raw === undefined) {
    if (def === undefined) throw new SimulationOptionError(`--${name} is required`);
    return def;
  }
  if (typeof raw !== 'string' || !/^\d+(\.\d+)?$/.test(raw)) throw new SimulationOptionError(`--${name} takes a number, got "${raw}"`);
  return Number(raw);
}

/** Registers the ids that are not registered yet to a master user, so the gateway accepts them. */
function register(store: Store, login: string, protocol: string, ids: string[]): number {
  const user = store.users.findByLogin(login);
  if (!user) throw new SimulationOptionError(`no user with login ${login}`);
  if (user.parent_id) throw new SimulationOptionError(`${login} is a sub-user; name its master`);
  let added = 0;
  for (const deviceId of ids) {
    if (store.trackers.deviceExists(deviceId)) continue;
    store.trackers.add({ userId: user.id, deviceId, protocol, label: `sim ${deviceId}`, tariffId: user.tariff_id, now: Date.now() });
    added++;
  }
  return added;
}

const line = (s: SimulationStats) =>
  `${(s.elapsedMs / 1000).toFixed(0).padStart(4)}s  connected ${s.connected}/${s.trackers}  sent ${s.sent}  acked ${s.acked}  pending ${s.pending}  resent ${s.resent}  errors ${s.errors}`;

export async function simulateCommand(store: Store, o: Opts, out: (text: string, obj?: Record<string, unknown>) => void, json: boolean): Promise<void> {
  const protocol = String(o.protocol ?? '');
  if (!DEVICE_PROTOCOLS[protocol]) throw new SimulationOptionError(`--protocol: one of ${Object.keys(DEVICE_PROTOCOLS).join(', ')}`);
  const trackers = number(o, 'trackers');
  const opts = {
    protocol,
    trackers,
    interval: number(o, 'interval'),
    duration: number(o, 'duration'),
    host: typeof o.host === 'string' ? o.host : undefined,
    port: o.port === undefined ? undefined : number(o, 'port'),
    deviceIdPrefix: typeof o['device-id-prefix'] === 'string' ? o['device-id-prefix'] : undefined,
    recordsPerPacket: number(o, 'records-per-packet', 1),
  };
  if (typeof o.register === 'string') {
    const added = register(store, o.register, protocol, deviceIdsFor(opts));
    if (!json) console.log(`registered ${added} new tracker(s) to ${o.register}`);
  }
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  try {
    const stats = await runSimulation({
      ...opts,
      signal: controller.signal,
      progressInterval: number(o, 'progress', 5),
      onProgress: json ? undefined : (s) => console.log(line(s)),
    });
    const rate = stats.acked / Math.max(stats.elapsedMs / 1000, 0.001);
    out(`${line(stats)}\ndone: ${stats.acked} of ${stats.sent} records sent acknowledged (${rate.toFixed(0)}/s), ${stats.connects} connections, ${stats.timeouts} timeouts, ${stats.pending} left unacknowledged`, { ...stats });
  } finally {
    process.off('SIGINT', stop);
  }
}
