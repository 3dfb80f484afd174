-- Report schedules (issue 12; docs/schedules.md "Report schedules"): a report request plus the
-- period it covers, queued at run_time in the user's time zone and mailed once ready.
-- last_period is written in the same transaction as the queued report, so a period is queued at
-- most once (also across restarts); report_id stays set until the report was mailed (or failed),
-- so a crash between ready and mail is mailed again at the next start.
CREATE TABLE report_schedules (
  id INTEGER PRIMARY KEY,
  owner_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,  -- who made it: its time zone, locale, report list
  title TEXT,                -- null: the plugin's default title
  plugin TEXT NOT NULL,      -- JSON: the plugin object as validated (plugin_id, show_seconds, ...)
  trackers TEXT,             -- JSON array, or null when employees are given
  employees TEXT,            -- JSON array, or null
  time_filter TEXT,          -- JSON, or null
  geocoder TEXT,             -- null: the user's default at run time
  period TEXT NOT NULL CHECK (period IN ('previous_day', 'previous_week', 'previous_month')),
  run_time TEXT NOT NULL,    -- HH:mm, wall time in the user's time zone
  format TEXT NOT NULL CHECK (format IN ('xlsx', 'pdf')),
  recipients TEXT NOT NULL,  -- JSON array of e-mail addresses
  enabled INTEGER NOT NULL DEFAULT 1,
  last_period TEXT,          -- yyyy-MM-dd: first day of the last period queued (or skipped on creation)
  last_run INTEGER,          -- when a report was last queued
  last_error TEXT,
  report_id INTEGER,         -- the queued report still to be mailed, or null
  mail_attempts INTEGER NOT NULL DEFAULT 0,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL
);
CREATE INDEX report_schedules_owner ON report_schedules(owner_id, id);
