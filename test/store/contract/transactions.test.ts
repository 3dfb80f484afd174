/**
 * What the contract promises of transactions and snapshots (docs/store.md): all or nothing, a
 * savepoint inside, calls made outside an open transaction never inside it, one state per snapshot.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DataStore } from '../../../src/store/contract.ts';
import { engines } from './engines.ts';

describe.each(engines('users', 'tags'))('$name engine: transactions', (engine) => {
  let data: DataStore;
  let dispose: () => Promise<void>;
  let user: number;
  beforeEach(async () => {
    ({ data, dispose } = await engine.open());
    user = await data.users.create({ login: 'ann@example.com', passwordHash: 'x', now: 0 });
  });
  afterEach(async () => dispose?.());

  const names = async (store: DataStore = data) => (await store.tags.list(user)).map((t) => t.name);

  it('commits everything the callback wrote, and answers what it answered', async () => {
    const id = await data.transaction(async (tx) => {
      await tx.tags.create(user, 'a', '00BFFF');
      return tx.tags.create(user, 'b', '00BFFF');
    });
    expect(await names()).toEqual(['a', 'b']);
    expect((await data.tags.get(user, id))?.name).toBe('b');
  });

  it('keeps nothing when the callback throws, and passes the error on', async () => {
    const failure = new Error('refused half-way');
    await expect(
      data.transaction(async (tx) => {
        await tx.tags.create(user, 'a', '00BFFF');
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await names()).toEqual([]);
    // The store still works after the rollback.
    await data.tags.create(user, 'c', '00BFFF');
    expect(await names()).toEqual(['c']);
  });

  it('a transaction inside another is a savepoint: its failure undoes only its own writes', async () => {
    await data.transaction(async (tx) => {
      await tx.tags.create(user, 'outer', '00BFFF');
      await expect(
        tx.transaction(async (inner) => {
          await inner.tags.create(user, 'inner', '00BFFF');
          throw new Error('inner refused');
        }),
      ).rejects.toThrow('inner refused');
      await tx.transaction(async (inner) => void (await inner.tags.create(user, 'kept', '00BFFF')));
    });
    expect(await names()).toEqual(['kept', 'outer']);
  });

  it('a call made outside an open transaction never lands inside it: the rollback does not take it', async () => {
    let outside: Promise<number> | undefined;
    await expect(
      data.transaction(async (tx) => {
        await tx.tags.create(user, 'undone', '00BFFF');
        // Another request of the process writes while this transaction waits on something.
        outside = data.tags.create(user, 'other request', '00BFFF');
        await new Promise((r) => setTimeout(r, 20));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await outside;
    expect(await names()).toEqual(['other request']);
  });

  it('a read made outside an open transaction does not see its uncommitted rows', async () => {
    let seen: Promise<string[]> | undefined;
    await data.transaction(async (tx) => {
      await tx.tags.create(user, 'new', '00BFFF');
      seen = names();
      await new Promise((r) => setTimeout(r, 20));
    });
    // The read waited for the commit (SQLite) or saw the state before it (PostgreSQL): never half.
    expect([[], ['new']]).toContainEqual(await seen);
  });

  it('transactions started together each commit whole, each seeing its own writes', async () => {
    const seen = await Promise.all(
      ['x', 'y', 'z'].map((n) =>
        data.transaction(async (tx) => {
          const id = await tx.tags.create(user, n, '00BFFF');
          await new Promise((r) => setTimeout(r, 5));
          return (await tx.tags.get(user, id))?.name;
        }),
      ),
    );
    expect(seen).toEqual(['x', 'y', 'z']);
    expect(await names()).toEqual(['x', 'y', 'z']);
  });

  it('a snapshot reads one state', async () => {
    await data.tags.create(user, 'a', '00BFFF');
    const inside = await data.snapshot(async (tx) => {
      const before = await names(tx);
      await new Promise((r) => setTimeout(r, 10));
      return [before, await names(tx)];
    });
    expect(inside).toEqual([['a'], ['a']]);
  });
});
