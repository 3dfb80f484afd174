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
  /** [0]: units posted and not yet taken. */
  shared: SharedArrayBuffer;
  limit: number;
}

export function boundedChannel(limit: number): { sender: ChannelEnd; receiver: ChannelEnd } {
  const { port1, port2 } = new MessageChannel();
  const shared = new SharedArrayBuffer(4);
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

/** Takes the messages; `units` says how much each weighed (as the sender counted it). */
export function receive<T>(end: ChannelEnd, units: (msg: T) => number, take: (msg: T) => void): () => void {
  const pending = new Int32Array(end.shared);
  const on = (msg: T) => {
    Atomics.sub(pending, 0, units(msg));
    take(msg);
  };
  end.port.on('message', on);
  end.port.unref();
  return () => {
    end.port.off('message', on);
    end.port.close();
  };
}
