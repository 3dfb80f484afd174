-- Where a device's chunks lie (src/store/fix-chunks.ts: the chunk holding a time, those starting in a
-- span): asked for every span a track read covers. In the WITHOUT ROWID table every b-tree cell,
-- interior ones too, holds its row with up to ~1 KB of the chunk's bytes, so a seek walks a deep
-- tree of a few cells per page: 60-100 µs a query on bench/reports' month (1,934 day chunks). The
-- spans alone in an index of their own: 11-16 µs.
CREATE INDEX fix_chunks_span ON fix_chunks(source_id, first_time, last_time, count);
