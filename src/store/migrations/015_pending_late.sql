-- Late data apart from in-order data in the telemetry work list. Without it, a window that finished
-- while newer fixes kept arriving left its old from_time behind, and the next window took the
-- device's in-order data for late data and replayed it from the trip's start: under steady ingest
-- every window reprocessed the whole trip. The writer counts commits that reach back before the
-- device's newest fix (late_version) and keeps their earliest time (late_from); a finished window
-- then continues from its tail unless late data came while it ran.
ALTER TABLE telemetry_pending ADD COLUMN late_from INTEGER;
ALTER TABLE telemetry_pending ADD COLUMN late_version INTEGER NOT NULL DEFAULT 0;

-- Reprocessing asked for by a task's assignment counts as late data too.
DROP TRIGGER tasks_reprocess_on_assign;
DROP TRIGGER tasks_reprocess_on_create;
CREATE TRIGGER tasks_reprocess_on_assign AFTER UPDATE OF tracker_id, from_time, to_time, lat, lng, radius ON tasks
WHEN NEW.tracker_id IS NOT NULL AND NEW.from_time IS NOT NULL AND NEW.type <> 'route'
BEGIN
  INSERT INTO telemetry_pending (source_id, from_time, version, late_from, late_version)
    SELECT source_id, NEW.from_time, 1, NEW.from_time, 1 FROM trackers WHERE id = NEW.tracker_id AND true
    ON CONFLICT (source_id) DO UPDATE SET from_time = min(from_time, excluded.from_time), version = version + 1,
      late_from = min(coalesce(late_from, excluded.late_from), excluded.late_from), late_version = late_version + 1;
END;
CREATE TRIGGER tasks_reprocess_on_create AFTER INSERT ON tasks
WHEN NEW.tracker_id IS NOT NULL AND NEW.from_time IS NOT NULL AND NEW.type <> 'route'
BEGIN
  INSERT INTO telemetry_pending (source_id, from_time, version, late_from, late_version)
    SELECT source_id, NEW.from_time, 1, NEW.from_time, 1 FROM trackers WHERE id = NEW.tracker_id AND true
    ON CONFLICT (source_id) DO UPDATE SET from_time = min(from_time, excluded.from_time), version = version + 1,
      late_from = min(coalesce(late_from, excluded.late_from), excluded.late_from), late_version = late_version + 1;
END;
