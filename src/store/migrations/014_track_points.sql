-- Packed track points (src/store/track-points.ts): derived from fixes by the telemetry workers.
CREATE TABLE track_points (
  source_id INTEGER NOT NULL,
  first_time INTEGER NOT NULL,
  last_time INTEGER NOT NULL,
  data BLOB NOT NULL,            -- float64 time[n], lat[n], lng[n], then uint8 lbs[n]
  PRIMARY KEY (source_id, first_time)
) WITHOUT ROWID;

-- Devices processed before this table existed are processed again from their beginning, which
-- writes their packed points; until then track reads take their points from fixes.
INSERT INTO telemetry_pending (source_id, from_time, version)
  SELECT source_id, 0, 1 FROM telemetry_tail WHERE true
  ON CONFLICT (source_id) DO UPDATE SET from_time = 0, version = version + 1;
DELETE FROM telemetry_tail;
DELETE FROM telemetry_checkpoints;
