-- Report ids are never reused (AUTOINCREMENT). Without it SQLite hands a deleted report's id to the
-- next one, so a client holding the old id could retrieve somebody's newer report, and the queue,
-- still finishing the deleted report, mistook the new one for it. The table is rebuilt once; nothing
-- references it by foreign key.
CREATE TABLE reports_new (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  owner_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,  -- whose entities it reads (the master)
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,   -- who asked (the per-user parallel limit)
  plugin_id INTEGER NOT NULL,
  title TEXT NOT NULL,
  created INTEGER NOT NULL,
  from_time INTEGER NOT NULL,
  to_time INTEGER NOT NULL,
  params TEXT NOT NULL,                -- JSON: trackers, employees, plugin, time_filter, geocoder, locale_info
  state TEXT NOT NULL DEFAULT 'queued',
  percent INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0, -- generations started (a crash mid-way counts; a clean stop does not)
  error TEXT,
  finished INTEGER,
  body BLOB
);
INSERT INTO reports_new SELECT * FROM reports;
DROP TABLE reports;
ALTER TABLE reports_new RENAME TO reports;
CREATE INDEX reports_owner ON reports(owner_id, id);
CREATE INDEX reports_waiting ON reports(state, id) WHERE state IN ('queued', 'running');
