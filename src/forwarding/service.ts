/**
 * The main thread's handle on the forwarding thread (thread.ts): what the API calls after a change
 * (`changed`, applied at once), the latest statuses for retranslator/list, and stop.
 */
import { Worker } from 'node:worker_threads';
import type { EngineOptions } from './engine.ts';
import type { ChannelEnd } from '../core/bounded-channel.ts';
import type { PriorityOptions } from './priority.ts';
import type { ForwardingControl, ForwardStatus } from './types.ts';

/**
 * Most fixes the writer's hand-off has on its way to the forwarding thread (not yet taken): a thread
 * starved of CPU under a flood must not let messages pile up; what is not handed off is read from the
 * store.
 */
export const HAND_OFF_ROWS = 20_000;

/** Every worker thread starts through this entry (it registers the TypeScript loader). */
const ENTRY = new URL('../../workers/ts-entry.mjs', import.meta.url);

export class ForwardingService implements ForwardingControl {
  private worker: Worker;
  private statuses = new Map<number, ForwardStatus>();
  private next = 1;
  private applied = new Map<number, () => void>();
  readonly ready: Promise<void>;
  private stopped?: Promise<void>;

  /** `handOff`: the receiving end of the writer's hand-off (src/main.ts wires the writer to the other end). */
  constructor(dbFile: string, options: EngineOptions & Partial<PriorityOptions> & { statusMs: number }, log: (msg: string) => void = () => undefined, handOff?: ChannelEnd) {
    this.worker = new Worker(ENTRY, {
      workerData: { dbFile, options: { nice: 0, urgentBacklog: 0, ...options }, nice: options.nice ?? 0, handOff, __entry: new URL('./thread.ts', import.meta.url).href },
      transferList: handOff ? [handOff.port] : [],
    });
    this.ready = new Promise((resolve, reject) => {
      this.worker.once('error', reject);
      this.worker.on('message', (m: { ready?: boolean }) => m.ready && resolve());
    });
    this.worker.on('message', (m: { statuses?: Array<[number, ForwardStatus]>; applied?: number }) => {
      if (m.statuses) this.statuses = new Map(m.statuses);
      if (m.applied !== undefined) {
        this.applied.get(m.applied)?.();
        this.applied.delete(m.applied);
      }
    });
    this.worker.on('error', (e) => log(`forwarding thread failed: ${e.message}`));
  }

  /** Resolves once the engine applied the change (its statuses reflect it). */
  changed(): Promise<void> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.applied.set(id, resolve);
      this.worker.postMessage({ changed: id });
    });
  }

  poke(): void {
    this.worker.postMessage({ poke: true });
  }

  status(id: number): ForwardStatus | undefined {
    return this.statuses.get(id);
  }

  close(): Promise<void> {
    this.stopped ??= new Promise<void>((resolve) => {
      const done = () => void this.worker.terminate().then(() => resolve());
      const t = setTimeout(done, 5000);
      this.worker.on('message', (m: { stopped?: boolean }) => {
        if (m.stopped) {
          clearTimeout(t);
          done();
        }
      });
      this.worker.once('exit', () => resolve());
      this.worker.postMessage({ stop: true });
    });
    for (const r of this.applied.values()) r();
    return this.stopped;
  }
}
