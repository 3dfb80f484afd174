/**
 * Substring search through a contentless FTS5 trigram index (tasks_fts and places_fts, migration
 * 010; checkins_fts, migration 038): each index holds lower(text) up to its first NUL, case-sensitive
 * trigrams, so a phrase of the ASCII-folded pattern matches exactly what `LIKE '%pattern%'` matches.
 * A full-text rowid carries the owner: (owner key << 36) | id, so one owner's matches are a rowid
 * range, and a count of them is answered by the index alone.
 */

/** Low 36 bits of a full-text rowid: the row's id; the bits above are the owner key. */
export const ID_MASK = 68719476735;
/** Full-text rowids of one owner key: (key << 36) | id. */
export function ownerRange(key: number): [bigint, bigint] {
  const lo = BigInt(key) << 36n;
  return [lo, lo | BigInt(ID_MASK)];
}
/** Lower case of ASCII letters only, as SQLite's lower() and LIKE fold. */
export const asciiLower = (s: string) => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
/** `LIKE` with `\` as its escape, and a pattern for it containing `s`. */
export const LIKE = "LIKE ? ESCAPE '\\'";
export const like = (s: string) => `%${s.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
/**
 * The FTS5 phrase that matches exactly the texts `LIKE '%s%'` matches; undefined when LIKE has to
 * answer: under 3 characters (no trigram) or a NUL in the pattern (LIKE stops reading there).
 */
export function ftsPhrase(s: string): string | undefined {
  if (s.includes('\0')) return undefined;
  let n = 0;
  for (const _ of s) if (++n === 3) break;
  return n < 3 ? undefined : `"${asciiLower(s).replace(/"/g, '""')}"`;
}

/** Columns of tasks_fts and places_fts. */
export const FTS_COLUMNS = ['label', 'description', 'address', 'external_id'] as const;
/** The phrase in some of a table's columns (a column filter costs time: none when all are meant). */
export function ftsExpr(cols: readonly string[], phrase: string, all: readonly string[] = FTS_COLUMNS): string {
  return all.every((c) => cols.includes(c)) ? phrase : `{${cols.join(' ')}}: ${phrase}`;
}

export interface SqlPart {
  sql: string;
  params: unknown[];
}

/**
 * The WHERE terms of a list query. A text term has two exact forms: `scan` (LIKE, checked on each row
 * read) and `fts` (the rows the full-text index finds); the query builder picks one per statement.
 */
export class Search {
  readonly terms: Array<{ scan: SqlPart; fts: SqlPart }> = [];
  private phrases: string[] = [];
  private likes: SqlPart[] = [];
  textual = false;

  constructor(
    readonly lo: bigint,
    readonly hi: bigint,
    private alias: string,
    private table: string,
    private columns: readonly string[] = FTS_COLUMNS,
  ) {}

  add(sql: string, ...params: unknown[]): void {
    const p = { sql, params };
    this.terms.push({ scan: p, fts: p });
  }
  /** `value` contained in any of the columns `cols`; `likeSql` has `n` LIKE placeholders. */
  text(cols: readonly string[], likeSql: string, value: string, n: number): void {
    const phrase = ftsPhrase(value);
    const params = Array(n).fill(like(value));
    if (phrase === undefined) this.add(likeSql, ...params);
    else this.phrase(ftsExpr(cols, phrase, this.columns), { sql: likeSql, params });
  }
  /** A pure full-text term (FTS5 expression) and its LIKE form. */
  phrase(expr: string, scan: SqlPart): void {
    this.phrases.push(expr);
    this.likes.push(scan);
    this.textual = true;
  }
  /** A term with a full-text part and other parts (e.g. the filter's tracker labels). */
  mixed(fts: SqlPart, scan: SqlPart): void {
    this.terms.push({ scan, fts });
    this.textual = true;
  }
  /** Only pure full-text terms: the count is the full-text index's alone. */
  get ftsOnly(): boolean {
    return this.phrases.length > 0 && this.terms.length === 0;
  }
  get match(): string {
    return this.phrases.join(' AND ');
  }
  /** The owner's matches counted by the full-text index alone (when `ftsOnly`). */
  get countSql(): string {
    return `SELECT COUNT(*) FROM ${this.table} WHERE ${this.table} MATCH ? AND rowid BETWEEN ? AND ?`;
  }
  where(base: string[], form: 'scan' | 'fts'): SqlPart {
    const sql = [...base];
    const params: unknown[] = [];
    for (const t of this.terms) {
      sql.push(t[form].sql);
      params.push(...t[form].params);
    }
    if (form === 'scan') {
      for (const l of this.likes) {
        sql.push(l.sql);
        params.push(...l.params);
      }
    } else if (this.phrases.length) {
      sql.push(`${this.alias}.id IN (SELECT rowid & ${ID_MASK} FROM ${this.table} WHERE ${this.table} MATCH ? AND rowid BETWEEN ? AND ?)`);
      params.push(this.match, this.lo, this.hi);
    }
    return { sql: sql.join(' AND '), params };
  }
}
