-- The forwarding log (issue 13, docs/retranslators.md) without its (source_id, seq) index: the writer
-- appends one log entry per fix of a bound tracker, and that index put each entry at its source's place
-- in a second B-tree (one more scattered page per source and commit, and again when pruned). The
-- engine reads the log by seq; the backlog is counted from the oldest cursor on (retranslators.ts).
DROP INDEX IF EXISTS forward_log_source;
