-- The field app (issue 11, docs/field-app.md): activation codes, device tokens and the task feed.

-- One live activation code per tracker (a new code replaces the old one); deleted when used.
-- code: the normalized code (upper case, no separators).
CREATE TABLE app_activation_codes (
  tracker_id INTEGER PRIMARY KEY REFERENCES trackers(id) ON DELETE CASCADE,
  code TEXT NOT NULL UNIQUE,
  created INTEGER NOT NULL,
  expires INTEGER NOT NULL
);

-- Device tokens: only their SHA-256 is stored (a copied database file grants no access).
-- label: what the app said about itself at activation (device model, app version).
CREATE TABLE app_tokens (
  id INTEGER PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  tracker_id INTEGER NOT NULL REFERENCES trackers(id) ON DELETE CASCADE,
  label TEXT NOT NULL DEFAULT '',
  created INTEGER NOT NULL,
  last_used INTEGER NOT NULL
);
CREATE INDEX app_tokens_tracker ON app_tokens(tracker_id);

-- Open task watches re-check their token whenever this counter moves (a revocation, by any process).
INSERT INTO versions (name, value) VALUES ('app_tokens', 1);
CREATE TRIGGER app_tokens_del AFTER DELETE ON app_tokens BEGIN UPDATE versions SET value = value + 1 WHERE name = 'app_tokens'; END;

-- The task feed: one row per change of a task as a tracker sees it. Written by triggers, so changes
-- from every writer count (API calls, the telemetry workers' outcomes, imports, the admin command).
-- A reassigned task gets a row for the old tracker (it is gone from its feed) and one for the new.
-- seq is the cursor the app keeps; rows older than the kept window are pruned (docs/field-app.md).
CREATE TABLE app_task_feed (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  tracker_id INTEGER NOT NULL,
  task_id INTEGER NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX app_task_feed_tracker ON app_task_feed(tracker_id, seq);
CREATE INDEX app_task_feed_at ON app_task_feed(at);
-- The highest seq pruned: a cursor below it cannot be continued (the app gets the whole list again).
INSERT INTO versions (name, value) VALUES ('app_task_feed_pruned', 0);

CREATE TRIGGER app_feed_task_ins AFTER INSERT ON tasks WHEN NEW.tracker_id IS NOT NULL BEGIN
  INSERT INTO app_task_feed (tracker_id, task_id, at) VALUES (NEW.tracker_id, NEW.id, CAST(unixepoch('subsec') * 1000 AS INTEGER));
END;
-- An update that changes nothing the app shows (the telemetry core rewrites a judged task's row
-- as it stands) writes no row: the feed carries real changes only.
CREATE TRIGGER app_feed_task_upd_old AFTER UPDATE ON tasks WHEN OLD.tracker_id IS NOT NULL AND (
  OLD.tracker_id IS NOT NEW.tracker_id OR OLD.label IS NOT NEW.label OR OLD.description IS NOT NEW.description
  OR OLD.lat IS NOT NEW.lat OR OLD.lng IS NOT NEW.lng OR OLD.address IS NOT NEW.address OR OLD.radius IS NOT NEW.radius
  OR OLD.from_time IS NOT NEW.from_time OR OLD.to_time IS NOT NEW.to_time OR OLD.external_id IS NOT NEW.external_id
  OR OLD.status IS NOT NEW.status OR OLD.status_change_date IS NOT NEW.status_change_date OR OLD.max_delay IS NOT NEW.max_delay
  OR OLD.min_stay_duration IS NOT NEW.min_stay_duration OR OLD.arrival_date IS NOT NEW.arrival_date
  OR OLD.stay_duration IS NOT NEW.stay_duration OR OLD.completion_date IS NOT NEW.completion_date
  OR OLD.route_id IS NOT NEW.route_id OR OLD.ord IS NOT NEW.ord OR OLD.type IS NOT NEW.type OR OLD.form_template_id IS NOT NEW.form_template_id
) BEGIN
  INSERT INTO app_task_feed (tracker_id, task_id, at) VALUES (OLD.tracker_id, OLD.id, CAST(unixepoch('subsec') * 1000 AS INTEGER));
END;
CREATE TRIGGER app_feed_task_upd_new AFTER UPDATE ON tasks WHEN NEW.tracker_id IS NOT NULL AND NEW.tracker_id IS NOT OLD.tracker_id BEGIN
  INSERT INTO app_task_feed (tracker_id, task_id, at) VALUES (NEW.tracker_id, NEW.id, CAST(unixepoch('subsec') * 1000 AS INTEGER));
END;
CREATE TRIGGER app_feed_task_del AFTER DELETE ON tasks WHEN OLD.tracker_id IS NOT NULL BEGIN
  INSERT INTO app_task_feed (tracker_id, task_id, at) VALUES (OLD.tracker_id, OLD.id, CAST(unixepoch('subsec') * 1000 AS INTEGER));
END;

-- A task's form (migration 018) is part of what the app shows of the task: its changes are the task's.
CREATE TRIGGER app_feed_form_ins AFTER INSERT ON forms WHEN NEW.task_id IS NOT NULL BEGIN
  INSERT INTO app_task_feed (tracker_id, task_id, at)
    SELECT tracker_id, id, CAST(unixepoch('subsec') * 1000 AS INTEGER) FROM tasks WHERE id = NEW.task_id AND tracker_id IS NOT NULL;
END;
CREATE TRIGGER app_feed_form_upd AFTER UPDATE ON forms WHEN NEW.task_id IS NOT NULL BEGIN
  INSERT INTO app_task_feed (tracker_id, task_id, at)
    SELECT tracker_id, id, CAST(unixepoch('subsec') * 1000 AS INTEGER) FROM tasks WHERE id = NEW.task_id AND tracker_id IS NOT NULL;
END;
CREATE TRIGGER app_feed_form_del AFTER DELETE ON forms WHEN OLD.task_id IS NOT NULL BEGIN
  INSERT INTO app_task_feed (tracker_id, task_id, at)
    SELECT tracker_id, id, CAST(unixepoch('subsec') * 1000 AS INTEGER) FROM tasks WHERE id = OLD.task_id AND tracker_id IS NOT NULL;
END;
