-- Retention (issue 15, docs/operations.md#retention): per device, the time from which its history is
-- kept. A retention pass deletes fixes and derived data before `kept_from`, which is always the time
-- of a telemetry checkpoint it keeps: late data older than that restarts processing from there
-- (src/store/telemetry.ts), never from the device's very first fix.
CREATE TABLE retention_marks (
  source_id INTEGER PRIMARY KEY,
  kept_from INTEGER NOT NULL,
  updated INTEGER NOT NULL
);
