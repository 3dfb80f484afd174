/** Pages of a list ordered by a looked-up name, read by groups (src/store/name-groups.ts). */
import { describe, expect, it } from 'vitest';
import { groupReads } from '../../src/store/name-groups.ts';

describe('groupReads', () => {
  // Names as SQLite's NOCASE orders them: ASCII folded, then UTF-8 bytes ('Ä' after 'z'); no name first.
  const groups = [
    { k: 1, n: 3, name: 'Zed' },
    { k: 2, n: 2, name: 'anna' },
    { k: null, n: 1, name: null },
    { k: 3, n: 2, name: 'Anna' },
    { k: 4, n: 1, name: 'Äda' },
    { k: 5, n: 2, name: null },
  ];

  it('orders groups as ORDER BY name COLLATE NOCASE; equal names (and no names) are one read', () => {
    expect(groupReads(groups, false, 0, 100)).toEqual([
      { keys: [null, 5], skip: 0, take: 3 },
      { keys: [2, 3], skip: 0, take: 4 },
      { keys: [1], skip: 0, take: 3 },
      { keys: [4], skip: 0, take: 1 },
    ]);
    expect(groupReads(groups, true, 0, 100).map((r) => r.keys)).toEqual([[4], [1], [3, 2], [5, null]]);
  });

  it('reads only the groups the page touches, skipping into the first', () => {
    expect(groupReads(groups, false, 4, 4)).toEqual([
      { keys: [2, 3], skip: 1, take: 3 },
      { keys: [1], skip: 0, take: 1 },
    ]);
    expect(groupReads(groups, false, 11, 5)).toEqual([]);
    expect(groupReads(groups, false, 0, 0)).toEqual([]);
  });
});
