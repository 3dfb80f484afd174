/**
 * The forwarding engine's thread: its own store connection, its own sockets. The main thread tells
 * it of changes (`changed`) and new commits (`poke`); it posts every retranslator's status back.
 */
import { writeFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../store/index.ts';
import { threadPriority } from '../core/thread-priority.ts';
import { ForwardingEngine, type EngineOptions } from './engine.ts';
import { PriorityGovernor, type PriorityOptions } from './priority.ts';
import { receive, type ChannelEnd } from '../core/bounded-channel.ts';
import type { CommittedLog } from '../store/retranslators.ts';

// ts-entry lowered this thread to workerData.nice before this module ran
const { dbFile, options, handOff } = workerData as { dbFile: string; options: EngineOptions & PriorityOptions & { statusMs: number }; handOff?: ChannelEnd };
// named, so per-thread tools (top -H, bench/forward) tell its CPU apart; Linux only, else unnamed
try {
  writeFileSync('/proc/thread-self/comm', 'fsm-forward');
} catch {
  // no /proc here
}
const store = openStore(dbFile);
// this connection is the engine's alone: its writes wait briefly for the lock, then are retried later
await store.data.retranslators.lockWait(200);
const engine = new ForwardingEngine(store, options);
engine.start();
// the writer's commits as it makes them: a caught-up retranslator forwards them without reading the store
const handOffs = handOff ? receive<CommittedLog>(handOff, (c) => c.attrs.length, (c) => engine.offer(c)) : null;
if (handOffs) engine.reader.handOffFrom(handOffs.pending);

const priority = new PriorityGovernor(options, threadPriority);

const post = () => {
  priority.update(engine.largestBacklog());
  parentPort!.postMessage({ statuses: engine.allStatuses() });
};
const timer = setInterval(post, options.statusMs);

parentPort!.on('message', async (m: { changed?: number; poke?: boolean; stop?: boolean }) => {
  if (m.changed !== undefined) {
    await engine.changed();
    post();
    parentPort!.postMessage({ applied: m.changed });
  }
  if (m.poke) engine.poke();
  if (m.stop) {
    clearInterval(timer);
    handOffs?.stop();
    await engine.stop();
    await store.data.close();
    parentPort!.postMessage({ stopped: true });
  }
});
parentPort!.postMessage({ ready: true });
