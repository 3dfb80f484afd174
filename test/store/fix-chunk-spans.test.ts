/**
 * Where a device's chunks lie is read from their own index (migration 039): the table's b-tree holds
 * ~1 KB of each chunk's bytes in every cell, interior ones too, and a seek through it cost 60-100 µs.
 */
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';

describe('fix_chunks spans', () => {
  it("the chunk holding a time and those starting in a span are found in the spans' covering index", () => {
    const db = openDatabase(':memory:');
    try {
      const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>).map((p) => p.detail).join('\n');
      expect(plan('SELECT first_time, last_time, count FROM fix_chunks WHERE source_id = 1 AND first_time <= 5 ORDER BY first_time DESC LIMIT 1')).toContain('COVERING INDEX fix_chunks_span');
      expect(plan('SELECT first_time, last_time, count FROM fix_chunks WHERE source_id = 1 AND first_time > 5 AND first_time <= 9 ORDER BY first_time')).toContain('COVERING INDEX fix_chunks_span');
      expect(plan('SELECT 1 FROM fix_chunks WHERE source_id = 1 AND first_time > 5 AND first_time <= 9 LIMIT 1')).toContain('COVERING INDEX fix_chunks_span');
    } finally {
      db.close();
    }
  });
});
