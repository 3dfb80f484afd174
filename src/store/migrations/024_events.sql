-- The event log (issue 12, docs/events.md): what happened to a tracker, for history/tracker/list,
-- reports and notifications.
--
-- Events derived from fixes by the telemetry core carry `decided`, the time of the fix whose
-- processing revealed them: a window reprocessed from time T replaces exactly the events decided
-- at or after T (an entry confirmed after T may have happened before it), so late data never
-- duplicates one. Events recorded by the domain code in the transaction of their change (check-ins,
-- status, task and form changes) and by the connection watcher have `decided` NULL: reprocessing
-- never touches them.
CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL,          -- the device: the events of its fixes count for its clones too
  tracker_id INTEGER,                  -- set for events of one tracker (domain events); NULL: every tracker over the device
  type TEXT NOT NULL,
  time INTEGER NOT NULL,               -- ms UTC, when it happened
  decided INTEGER,                     -- ms UTC, see above; NULL: never replaced
  lat REAL,
  lng REAL,
  extra TEXT                           -- JSON object of the type's members, or NULL
);
-- history/tracker/list: a device's events of a period in time order.
CREATE INDEX events_source_time ON events(source_id, time);
-- What a reprocessed window replaces: a range, not a scan of the device's history.
CREATE INDEX events_source_decided ON events(source_id, decided) WHERE decided IS NOT NULL;

-- The connection watcher (docs/events.md "Connection"): devices it has recorded as lost, since when.
CREATE TABLE connection_lost (
  source_id INTEGER PRIMARY KEY,
  since INTEGER NOT NULL               -- ms UTC, the last receipt before the loss
);
