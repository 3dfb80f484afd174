/**
 * Pages of a list ordered first by a name looked up through a key column (task/form/list by its
 * tracker's employee): rows of one key are neighbours in that order, so the caller counts the matching rows per key (one pass over an index), these functions put the keys in
 * the order SQLite's `ORDER BY name COLLATE NOCASE` gives, and only the groups a page touches are
 * read, each in the list's remaining order. The same rows as ORDER BY the name subquery, without
 * evaluating it for every matching row.
 */

/** The matching rows of one key (null: rows without one) and the key's name (null: none). */
export interface KeyGroup {
  k: number | null;
  n: number;
  name: string | null;
}

/** One read of a page: the rows of these keys (null: the rows without a key), `skip` of them skipped, at most `take`. */
export interface GroupRead {
  keys: Array<number | null>;
  skip: number;
  take: number;
}

/** SQLite's order: NULL first ascending; text as NOCASE compares it (ASCII folded, then UTF-8 bytes). */
const sortKey = (name: string | null): Buffer | null => (name === null ? null : Buffer.from(name.replace(/[A-Z]+/g, (m) => m.toLowerCase()), 'utf8'));
const compare = (a: Buffer | null, b: Buffer | null): number => (a === null || b === null ? (a === b ? 0 : a === null ? -1 : 1) : Buffer.compare(a, b));

/**
 * The reads that make the page [offset, offset + limit) of the groups in name order. Keys whose names
 * are equal form one run: their rows interleave by the remaining order, so a run is read together.
 */
export function groupReads(groups: KeyGroup[], descending: boolean, offset: number, limit: number): GroupRead[] {
  const keyed = groups.map((g) => ({ ...g, key: sortKey(g.name) })).sort((a, b) => compare(a.key, b.key));
  if (descending) keyed.reverse();
  const runs: Array<{ keys: Array<number | null>; n: number }> = [];
  keyed.forEach((g, i) => {
    if (i > 0 && compare(keyed[i - 1].key, g.key) === 0) {
      runs[runs.length - 1].keys.push(g.k);
      runs[runs.length - 1].n += g.n;
    } else runs.push({ keys: [g.k], n: g.n });
  });
  const reads: GroupRead[] = [];
  let skip = offset;
  let want = limit;
  for (const run of runs) {
    if (want <= 0) break;
    if (skip >= run.n) {
      skip -= run.n;
      continue;
    }
    const take = Math.min(want, run.n - skip);
    reads.push({ keys: run.keys, skip, take });
    want -= take;
    skip = 0;
  }
  return reads;
}
