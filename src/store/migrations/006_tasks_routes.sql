-- Tasks, routes and checkpoints (issue 4; docs/tasks-api.md). One table and one id space:
-- task/read takes "a task, route or checkpoint id". Times are UTC milliseconds since the epoch.
--   type task:       a standalone task (location and time window required)
--   type route:      an ordered set of checkpoints; no location; from/to = span of its checkpoints
--   type checkpoint: a task belonging to a route (route_id, ord = zero-based position)
CREATE TABLE tasks (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  type TEXT NOT NULL DEFAULT 'task' CHECK (type IN ('task', 'route', 'checkpoint')),
  route_id INTEGER REFERENCES tasks(id) ON DELETE CASCADE,
  ord INTEGER,
  tracker_id INTEGER REFERENCES trackers(id),
  label TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  lat REAL,
  lng REAL,
  address TEXT NOT NULL DEFAULT '',
  radius INTEGER,
  from_time INTEGER,
  to_time INTEGER,
  external_id TEXT,
  status TEXT NOT NULL DEFAULT 'unassigned'
    CHECK (status IN ('unassigned', 'assigned', 'done', 'failed', 'delayed', 'arrived', 'faulty')),
  status_change_date INTEGER NOT NULL,
  max_delay INTEGER NOT NULL DEFAULT 0,
  min_stay_duration INTEGER NOT NULL DEFAULT 0,
  arrival_date INTEGER,
  stay_duration INTEGER NOT NULL DEFAULT 0,
  completion_date INTEGER,
  origin TEXT NOT NULL DEFAULT 'manual' CHECK (origin IN ('manual', 'scheduled', 'imported')),
  form_template_id INTEGER,
  creation_date INTEGER NOT NULL
);

-- Indexes for task/list filters and sorts. Every query is scoped to the owner, and task/list
-- reads tasks and checkpoints (type <> 'route'), so the list indexes are partial on exactly that
-- term: COUNT(*) and the ORDER BY of a page are then answered from the index alone.
CREATE INDEX tasks_list_from ON tasks(user_id, from_time, to_time, status, tracker_id) WHERE type <> 'route';
CREATE INDEX tasks_list_status ON tasks(user_id, status, from_time) WHERE type <> 'route';
CREATE INDEX tasks_list_label ON tasks(user_id, label COLLATE NOCASE) WHERE type <> 'route';
-- Bounding box of the location filter (few rows per box, whoever they belong to).
CREATE INDEX tasks_list_geo ON tasks(lat, lng) WHERE type <> 'route';
CREATE INDEX tasks_routes ON tasks(user_id, from_time) WHERE type = 'route';
CREATE INDEX tasks_external ON tasks(user_id, external_id);
CREATE INDEX tasks_tracker ON tasks(tracker_id, status);
CREATE INDEX tasks_route ON tasks(route_id, ord);
-- Created last on purpose: among equally good indexes SQLite takes the newest, and for a filter
-- that no index serves this one visits the owner's rows in table order (no random look-ups).
CREATE INDEX tasks_list_id ON tasks(user_id) WHERE type <> 'route';

-- Tags and custom field values of a deleted task, route or checkpoint go with it (also on the
-- cascade from a deleted route to its checkpoints).
CREATE TRIGGER tasks_del_bindings AFTER DELETE ON tasks BEGIN
  DELETE FROM entity_tags WHERE entity_type = 'task' AND entity_id = OLD.id;
  DELETE FROM entity_field_values WHERE entity_type = 'task' AND entity_id = OLD.id;
END;

-- The version hook of the geofence index (migration 003): task zones and their assignment.
-- Status, arrival and stay changes (the telemetry core's own writes) do not bump it.
CREATE TRIGGER tasks_geo_ins AFTER INSERT ON tasks BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
CREATE TRIGGER tasks_geo_del AFTER DELETE ON tasks BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
CREATE TRIGGER tasks_geo_upd AFTER UPDATE OF lat, lng, radius, from_time, to_time, tracker_id, route_id, type ON tasks
WHEN OLD.lat IS NOT NEW.lat OR OLD.lng IS NOT NEW.lng OR OLD.radius IS NOT NEW.radius OR OLD.from_time IS NOT NEW.from_time
  OR OLD.to_time IS NOT NEW.to_time OR OLD.tracker_id IS NOT NEW.tracker_id OR OLD.route_id IS NOT NEW.route_id OR OLD.type IS NOT NEW.type
BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
