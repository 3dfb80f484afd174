-- The telemetry core (issue 5): what processing derives from fixes, and what it still has to do.

-- Windows of fixes still to process, per device: written in the same transaction as the fixes, so
-- committed data is processed even after a crash. from_time: the earliest fix time not yet processed.
CREATE TABLE telemetry_pending (
  source_id INTEGER PRIMARY KEY,
  from_time INTEGER NOT NULL,
  version INTEGER NOT NULL DEFAULT 1   -- bumped on every change: processing clears only what it saw
);

-- Trips, parkings and single reports (the track/list descriptions). `open`: the current one.
CREATE TABLE tracks (
  id INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL,
  type TEXT NOT NULL,                  -- trip, parking, single_report
  start_time INTEGER NOT NULL,
  end_time INTEGER NOT NULL,
  start_lat REAL NOT NULL,
  start_lng REAL NOT NULL,
  end_lat REAL NOT NULL,
  end_lng REAL NOT NULL,
  points INTEGER NOT NULL,
  length_km REAL NOT NULL,
  max_speed REAL NOT NULL,
  avg_speed REAL NOT NULL,
  gsm_lbs INTEGER NOT NULL DEFAULT 0,
  precision REAL,
  events INTEGER NOT NULL DEFAULT 0,
  extent_m REAL,                       -- diagonal of the trip's bounding box (filter: circling trips)
  open INTEGER NOT NULL DEFAULT 0,
  start_address TEXT,
  end_address TEXT
);
CREATE INDEX tracks_source_time ON tracks(source_id, start_time);

-- Stays inside geofences (zones, places, task zones). exit_time NULL: still inside.
CREATE TABLE visits (
  id INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL,
  kind TEXT NOT NULL,                  -- zone, place, task
  geo_id INTEGER NOT NULL,
  enter_time INTEGER NOT NULL,
  exit_time INTEGER
);
CREATE INDEX visits_source_time ON visits(source_id, enter_time);
CREATE INDEX visits_geo ON visits(kind, geo_id, enter_time);

-- Processor state at the start of each segment: late data is reprocessed from the checkpoint before it.
CREATE TABLE telemetry_checkpoints (
  source_id INTEGER NOT NULL,
  time INTEGER NOT NULL,
  state TEXT NOT NULL,
  PRIMARY KEY (source_id, time)
) WITHOUT ROWID;

-- Per-device processing settings (tracker/settings/*); absent: the defaults.
CREATE TABLE telemetry_settings (
  source_id INTEGER PRIMARY KEY,
  settings TEXT NOT NULL
);

-- Counters computed where the device does not report them (tracker/get_counters).
CREATE TABLE telemetry_counters (
  source_id INTEGER PRIMARY KEY,
  odometer_km REAL NOT NULL,
  engine_hours REAL NOT NULL,
  fuel_l REAL NOT NULL,
  updated INTEGER NOT NULL
);

-- The processor state after the last processed point: in-order data continues from here without
-- re-reading the current trip; late data restarts from the checkpoint before it.
CREATE TABLE telemetry_tail (
  source_id INTEGER PRIMARY KEY,
  time INTEGER NOT NULL,
  state TEXT NOT NULL
);

-- A task assigned (or its window or zone changed) while the tracker's data is already processed:
-- its stays are judged by fix times, so the tracker's history from the task's start is reprocessed.
CREATE TRIGGER tasks_reprocess_on_assign AFTER UPDATE OF tracker_id, from_time, to_time, lat, lng, radius ON tasks
WHEN NEW.tracker_id IS NOT NULL AND NEW.from_time IS NOT NULL AND NEW.type <> 'route'
BEGIN
  INSERT INTO telemetry_pending (source_id, from_time, version)
    SELECT source_id, NEW.from_time, 1 FROM trackers WHERE id = NEW.tracker_id AND true
    ON CONFLICT (source_id) DO UPDATE SET from_time = min(from_time, excluded.from_time), version = version + 1;
END;
CREATE TRIGGER tasks_reprocess_on_create AFTER INSERT ON tasks
WHEN NEW.tracker_id IS NOT NULL AND NEW.from_time IS NOT NULL AND NEW.type <> 'route'
BEGIN
  INSERT INTO telemetry_pending (source_id, from_time, version)
    SELECT source_id, NEW.from_time, 1 FROM trackers WHERE id = NEW.tracker_id AND true
    ON CONFLICT (source_id) DO UPDATE SET from_time = min(from_time, excluded.from_time), version = version + 1;
END;
