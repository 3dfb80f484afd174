-- Retranslators (issue 13, docs/retranslators.md): forwarding the fixes of bound trackers to other
-- servers, at least once and in order per tracker.

CREATE TABLE retranslators (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  name TEXT NOT NULL,
  protocol_id INTEGER NOT NULL,
  address TEXT NOT NULL,
  port INTEGER NOT NULL,
  login TEXT NOT NULL DEFAULT '',
  password TEXT NOT NULL DEFAULT '',
  enabled INTEGER NOT NULL DEFAULT 1,
  -- fix time of the last fix the receiver acknowledged (status in retranslator/list)
  last_forwarded INTEGER,
  -- bumped by every change: the forwarding engine restarts a retranslator whose version moved
  version INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX retranslators_user ON retranslators(user_id);

-- A tracker bound to a retranslator, with the durable cursor of what the receiver acknowledged:
-- the forward_log seq up to which every entry of this source was acknowledged.
CREATE TABLE retranslator_bindings (
  retranslator_id INTEGER NOT NULL REFERENCES retranslators(id) ON DELETE CASCADE,
  tracker_id INTEGER NOT NULL REFERENCES trackers(id),
  source_id INTEGER NOT NULL,
  fake_device_id TEXT,
  cursor INTEGER NOT NULL,
  bound INTEGER NOT NULL,
  PRIMARY KEY (retranslator_id, tracker_id)
);
-- the trigger's look-up and the engine's join from the log to a retranslator's bindings
CREATE INDEX retranslator_bindings_source ON retranslator_bindings(source_id, retranslator_id);

-- Arrival order of the fixes of bound sources: one entry per committed insert or merge, written in
-- the writer's transaction (so an acknowledged fix always has its entry). seq grows with commits;
-- entries every cursor has passed are pruned by the engine.
CREATE TABLE forward_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  source_id INTEGER NOT NULL,
  time INTEGER NOT NULL
);
CREATE INDEX forward_log_source ON forward_log(source_id, seq);

CREATE TRIGGER fixes_forward_insert AFTER INSERT ON fixes
WHEN EXISTS (SELECT 1 FROM retranslator_bindings WHERE source_id = NEW.source_id)
BEGIN
  INSERT INTO forward_log (source_id, time) VALUES (NEW.source_id, NEW.time);
END;

-- A repeat of an instant merged into the stored fix is forwarded again (with the merged values).
CREATE TRIGGER fixes_forward_update AFTER UPDATE ON fixes
WHEN EXISTS (SELECT 1 FROM retranslator_bindings WHERE source_id = NEW.source_id)
BEGIN
  INSERT INTO forward_log (source_id, time) VALUES (NEW.source_id, NEW.time);
END;
