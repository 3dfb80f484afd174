-- Task schedules (issue 12; docs/schedules.md): a task template plus the days it recurs on, from
-- which tasks with origin 'scheduled' are created ahead of time. task_schedule_days remembers each
-- day already created, so a day is created once (also across restarts and after the user deletes
-- the task), and editing a schedule never touches tasks already created.
CREATE TABLE task_schedules (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  label TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  lat REAL NOT NULL,
  lng REAL NOT NULL,
  address TEXT NOT NULL DEFAULT '',
  radius INTEGER NOT NULL,
  tracker_id INTEGER,
  max_delay INTEGER NOT NULL DEFAULT 0,
  min_stay_duration INTEGER NOT NULL DEFAULT 0,
  external_id TEXT,
  tags TEXT,                 -- JSON array of tag ids, or null
  fields TEXT,               -- JSON object of custom field values, or null
  form_template_id INTEGER,  -- a form from this template on every task, or null
  kind TEXT NOT NULL CHECK (kind IN ('weekdays', 'month_days')),
  days TEXT NOT NULL,        -- JSON array: weekdays 1..7 (Monday = 1) or days of the month 1..31
  from_time TEXT NOT NULL,   -- HH:mm:ss, wall time in the user's time zone
  to_time TEXT NOT NULL,     -- HH:mm:ss; not after from_time: the next day
  days_ahead INTEGER NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 1,
  last_error TEXT,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL
);
CREATE INDEX task_schedules_user ON task_schedules(user_id, id);

CREATE TABLE task_schedule_days (
  schedule_id INTEGER NOT NULL REFERENCES task_schedules(id) ON DELETE CASCADE,
  day TEXT NOT NULL,         -- yyyy-MM-dd in the user's time zone
  task_id INTEGER REFERENCES tasks(id) ON DELETE SET NULL,
  PRIMARY KEY (schedule_id, day)
) WITHOUT ROWID;
