-- Compact fix storage (issue 15, docs/storage.md): processed fixes past the compaction horizon move
-- out of `fixes` into per-device chunks (src/core/fix-chunk.ts encodes them), at most one UTC day
-- each. Chunks of one device never overlap in time, and no row of `fixes` lies inside a chunk's
-- [first_time, last_time]: the writer reopens a chunk (back into rows) before a late record lands
-- in it. Track points and all but one telemetry checkpoint per chunk go with the rows.
CREATE TABLE fix_chunks (
  source_id INTEGER NOT NULL,
  first_time INTEGER NOT NULL,
  last_time INTEGER NOT NULL,
  count INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (source_id, first_time)
) WITHOUT ROWID;
