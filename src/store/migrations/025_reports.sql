-- Tracker reports (issue 12; docs/reports.md): the queue and the results. A report is queued,
-- running (a worker generates it; `percent` advances), ready (`body`: gzip'd JSON of the report
-- object) or failed (`error` says why). Rows left running by a crash are queued again at start.
CREATE TABLE reports (
  id INTEGER PRIMARY KEY,
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
CREATE INDEX reports_owner ON reports(owner_id, id);
CREATE INDEX reports_waiting ON reports(state, id) WHERE state IN ('queued', 'running');
