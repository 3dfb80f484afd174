/**
 * A one-way channel between two threads whose backlog is bounded: the sender posts only while the
 * receiver has taken all but `limit` units of what was posted (a count shared through a
 * SharedArrayBuffer), and otherwise drops the message. For data the receiver can get elsewhere (the
 * forwarding thread reads from the store what the writer's hand-off dropped): a receiver starved of CPU
 * must not make the other thread queue messages without limit.
 */
import { MessageChannel, type MessagePort, type Transferable } from 'node:worker_threads';

/** One end, as it crosses to its thread (a port and the shared count are transferable/shareable). */
export interface ChannelEnd {
  port: MessagePort;
  /** [0]: units posted and not yet taken; [1]: messages being made (`making`). */
  shared: SharedArrayBuffer;
  limit: number;
}

export function boundedChannel(limit: number): { sender: ChannelEnd; receiver: ChannelEnd } {
  const { port1, port2 } = new MessageChannel();
  const shared = new SharedArrayBuffer(8);
  return { sender: { port: port1, shared, limit }, receiver: { port: port2, shared, limit } };
}

export class BoundedSender<T> {
  private pending: Int32Array;
  /** Messages dropped because the receiver was behind (benchmarks). */
  dropped = 0;

  constructor(private end: ChannelEnd) {
    this.pending = new Int32Array(end.shared);
    // a message the receiver never takes must not keep the sending thread alive
    end.port.unref();
  }

  /**
   * A message is being made (its data may be visible to the receiver elsewhere before it is posted):
   * the receiver sees it as on its way until `made`, which follows its `offer` (or the decision not to).
   */
  making(): void {
    Atomics.add(this.pending, 1, 1);
  }

  made(): void {
    Atomics.sub(this.pending, 1, 1);
  }

  /** The receiver keeps up: a message would be posted now (a sender skips making one that would be dropped). */
  hasRoom(): boolean {
    return Atomics.load(this.pending, 0) < this.end.limit;
  }

  /** Posts `msg` weighing `units` if the receiver keeps up; false (nothing posted) otherwise. */
  offer(msg: T, units: number, transfer: Transferable[] = []): boolean {
    if (Atomics.load(this.pending, 0) + units > this.end.limit) {
      this.dropped++;
      return false;
    }
    Atomics.add(this.pending, 0, units);
    this.end.port.postMessage(msg, transfer);
    return true;
  }

  close(): void {
    this.end.port.close();
  }
}

/**
 * Takes the messages; `units` says how much each weighed (as the sender counted it). `pending`: units
 * posted and not yet taken, plus messages being made (more is on its way when > 0); `stop` closes the
 * channel.
 */
export function receive<T>(end: ChannelEnd, units: (msg: T) => number, take: (msg: T) => void): { pending: () => number; stop: () => void } {
  const pending = new Int32Array(end.shared);
  const on = (msg: T) => {
    Atomics.sub(pending, 0, units(msg));
    take(msg);
  };
  end.port.on('message', on);
  end.port.unref();
  return {
    pending: () => Atomics.load(pending, 0) + Atomics.load(pending, 1),
    stop: () => {
      end.port.off('message', on);
      end.port.close();
    },
  };
}
