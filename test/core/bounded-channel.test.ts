/**
 * The bounded channel of the writer's hand-off (src/core/bounded-channel.ts): the sender posts while
 * the receiver has taken all but `limit` units and drops beyond; `pending` counts what is on its way,
 * messages being made included.
 */
import { describe, expect, it } from 'vitest';
import { BoundedSender, boundedChannel, receive } from '../../src/core/bounded-channel.ts';

describe('bounded channel', () => {
  it('drops beyond the limit of units not yet taken, and posts again once they are taken', async () => {
    const { sender, receiver } = boundedChannel(10);
    const tx = new BoundedSender<number[]>(sender);
    const got: number[][] = [];
    let arrived: () => void = () => undefined;
    const rx = receive<number[]>(receiver, (m) => m.length, (m) => {
      got.push(m);
      arrived();
    });
    expect(tx.offer([1, 2, 3, 4], 4)).toBe(true);
    expect(tx.offer([5, 6, 7, 8, 9, 10], 6)).toBe(true);
    expect(tx.hasRoom()).toBe(false);
    expect(tx.offer([11], 1)).toBe(false);
    expect(tx.dropped).toBe(1);
    expect(rx.pending()).toBe(10);
    await new Promise<void>((r) => (arrived = () => got.length === 2 && r()));
    expect(rx.pending()).toBe(0);
    expect(tx.hasRoom()).toBe(true);
    expect(tx.offer([12], 1)).toBe(true);
    await new Promise<void>((r) => (arrived = () => got.length === 3 && r()));
    expect(got).toEqual([[1, 2, 3, 4], [5, 6, 7, 8, 9, 10], [12]]);
    tx.close();
    rx.stop();
  });

  it('a message being made counts as on its way until made', () => {
    const { sender, receiver } = boundedChannel(10);
    const tx = new BoundedSender<number>(sender);
    const rx = receive<number>(receiver, () => 1, () => undefined);
    tx.making();
    expect(rx.pending()).toBe(1);
    tx.made();
    expect(rx.pending()).toBe(0);
    tx.close();
    rx.stop();
  });
});
