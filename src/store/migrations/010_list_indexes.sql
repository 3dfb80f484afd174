-- List performance (issue 4, bench/lists; docs/lists-performance.md): task/list and place/list
-- answer within 20 ms over 100,000 tasks and 50,000 places. Everything here is kept by triggers,
-- so every writer (the stores, the telemetry core, imports, raw SQL in tests) keeps it right.

-- 1. Row counts. The count of a task/list without filters, or filtered by statuses and trackers only,
-- is a sum over a few rows of task_counts instead of a scan over the owner's tasks; so is task/count.
-- route: 1 for routes, 0 for tasks and checkpoints. tracker_id 0: none. Rows that drop to 0 stay.
CREATE TABLE task_counts (
  user_id INTEGER NOT NULL,
  route INTEGER NOT NULL,
  status TEXT NOT NULL,
  tracker_id INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (user_id, route, status, tracker_id)
) WITHOUT ROWID;
INSERT INTO task_counts (user_id, route, status, tracker_id, n)
  SELECT user_id, type = 'route', status, COALESCE(tracker_id, 0), COUNT(*) FROM tasks GROUP BY 1, 2, 3, 4;

CREATE TRIGGER task_counts_ins AFTER INSERT ON tasks BEGIN
  INSERT INTO task_counts (user_id, route, status, tracker_id, n) VALUES (NEW.user_id, NEW.type = 'route', NEW.status, COALESCE(NEW.tracker_id, 0), 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER task_counts_del AFTER DELETE ON tasks BEGIN
  UPDATE task_counts SET n = n - 1
    WHERE user_id = OLD.user_id AND route = (OLD.type = 'route') AND status = OLD.status AND tracker_id = COALESCE(OLD.tracker_id, 0);
END;
CREATE TRIGGER task_counts_upd AFTER UPDATE OF user_id, type, status, tracker_id ON tasks
WHEN OLD.user_id IS NOT NEW.user_id OR (OLD.type = 'route') IS NOT (NEW.type = 'route') OR OLD.status IS NOT NEW.status
  OR OLD.tracker_id IS NOT NEW.tracker_id
BEGIN
  UPDATE task_counts SET n = n - 1
    WHERE user_id = OLD.user_id AND route = (OLD.type = 'route') AND status = OLD.status AND tracker_id = COALESCE(OLD.tracker_id, 0);
  INSERT INTO task_counts (user_id, route, status, tracker_id, n) VALUES (NEW.user_id, NEW.type = 'route', NEW.status, COALESCE(NEW.tracker_id, 0), 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- Places per owner (place/list without filters, the max_places quota).
CREATE TABLE place_counts (user_id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
INSERT INTO place_counts (user_id, n) SELECT user_id, COUNT(*) FROM places GROUP BY user_id;
CREATE TRIGGER place_counts_ins AFTER INSERT ON places BEGIN
  INSERT INTO place_counts (user_id, n) VALUES (NEW.user_id, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER place_counts_del AFTER DELETE ON places BEGIN
  UPDATE place_counts SET n = n - 1 WHERE user_id = OLD.user_id;
END;
CREATE TRIGGER place_counts_upd AFTER UPDATE OF user_id ON places WHEN OLD.user_id IS NOT NEW.user_id BEGIN
  UPDATE place_counts SET n = n - 1 WHERE user_id = OLD.user_id;
  INSERT INTO place_counts (user_id, n) VALUES (NEW.user_id, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- 2. Substring search: the text `filter`, `filters` and top-level `contains` conditions of task/list,
-- task/route/list and place/list, for patterns of 3 characters or more (shorter ones stay LIKE).
-- Exactly the semantics of `x LIKE '%pattern%'` (ASCII case-insensitive, anything else exact):
--  * the indexed text is lower(x), which folds ASCII only, and the tokenizer is case sensitive; the
--    query is the pattern with ASCII folded the same way, as one phrase, so a match is a substring;
--  * LIKE reads text up to its first NUL character, so only that part is indexed.
-- Contentless (the text stays in tasks/places only). The rowid carries the owner:
--   tasks:  ((user_id * 2 + (type = 'route')) << 36) | id      places: (user_id << 36) | id
-- so a search is a rowid range of one owner (and of routes or of tasks and checkpoints), and an owner's
-- count is answered by the full-text index alone. Ids stay below 2^36, owners below 2^26.
CREATE VIRTUAL TABLE tasks_fts USING fts5(label, description, address, external_id,
  content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1');
INSERT INTO tasks_fts (rowid, label, description, address, external_id)
  SELECT ((user_id * 2 + (type = 'route')) << 36) | id,
    lower(CASE WHEN instr(label, char(0)) THEN substr(label, 1, instr(label, char(0)) - 1) ELSE label END),
    lower(CASE WHEN instr(description, char(0)) THEN substr(description, 1, instr(description, char(0)) - 1) ELSE description END),
    lower(CASE WHEN instr(address, char(0)) THEN substr(address, 1, instr(address, char(0)) - 1) ELSE address END),
    lower(CASE WHEN instr(external_id, char(0)) THEN substr(external_id, 1, instr(external_id, char(0)) - 1) ELSE external_id END)
  FROM tasks;

CREATE TRIGGER tasks_fts_ins AFTER INSERT ON tasks BEGIN
  INSERT INTO tasks_fts (rowid, label, description, address, external_id) VALUES (((NEW.user_id * 2 + (NEW.type = 'route')) << 36) | NEW.id,
    lower(CASE WHEN instr(NEW.label, char(0)) THEN substr(NEW.label, 1, instr(NEW.label, char(0)) - 1) ELSE NEW.label END),
    lower(CASE WHEN instr(NEW.description, char(0)) THEN substr(NEW.description, 1, instr(NEW.description, char(0)) - 1) ELSE NEW.description END),
    lower(CASE WHEN instr(NEW.address, char(0)) THEN substr(NEW.address, 1, instr(NEW.address, char(0)) - 1) ELSE NEW.address END),
    lower(CASE WHEN instr(NEW.external_id, char(0)) THEN substr(NEW.external_id, 1, instr(NEW.external_id, char(0)) - 1) ELSE NEW.external_id END));
END;
CREATE TRIGGER tasks_fts_del AFTER DELETE ON tasks BEGIN
  DELETE FROM tasks_fts WHERE rowid = ((OLD.user_id * 2 + (OLD.type = 'route')) << 36) | OLD.id;
END;
CREATE TRIGGER tasks_fts_upd AFTER UPDATE OF user_id, type, label, description, address, external_id ON tasks
WHEN OLD.user_id IS NOT NEW.user_id OR (OLD.type = 'route') IS NOT (NEW.type = 'route') OR OLD.label IS NOT NEW.label
  OR OLD.description IS NOT NEW.description OR OLD.address IS NOT NEW.address OR OLD.external_id IS NOT NEW.external_id
BEGIN
  DELETE FROM tasks_fts WHERE rowid = ((OLD.user_id * 2 + (OLD.type = 'route')) << 36) | OLD.id;
  INSERT INTO tasks_fts (rowid, label, description, address, external_id) VALUES (((NEW.user_id * 2 + (NEW.type = 'route')) << 36) | NEW.id,
    lower(CASE WHEN instr(NEW.label, char(0)) THEN substr(NEW.label, 1, instr(NEW.label, char(0)) - 1) ELSE NEW.label END),
    lower(CASE WHEN instr(NEW.description, char(0)) THEN substr(NEW.description, 1, instr(NEW.description, char(0)) - 1) ELSE NEW.description END),
    lower(CASE WHEN instr(NEW.address, char(0)) THEN substr(NEW.address, 1, instr(NEW.address, char(0)) - 1) ELSE NEW.address END),
    lower(CASE WHEN instr(NEW.external_id, char(0)) THEN substr(NEW.external_id, 1, instr(NEW.external_id, char(0)) - 1) ELSE NEW.external_id END));
END;

CREATE VIRTUAL TABLE places_fts USING fts5(label, description, address, external_id,
  content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1');
INSERT INTO places_fts (rowid, label, description, address, external_id)
  SELECT (user_id << 36) | id,
    lower(CASE WHEN instr(label, char(0)) THEN substr(label, 1, instr(label, char(0)) - 1) ELSE label END),
    lower(CASE WHEN instr(description, char(0)) THEN substr(description, 1, instr(description, char(0)) - 1) ELSE description END),
    lower(CASE WHEN instr(address, char(0)) THEN substr(address, 1, instr(address, char(0)) - 1) ELSE address END),
    lower(CASE WHEN instr(external_id, char(0)) THEN substr(external_id, 1, instr(external_id, char(0)) - 1) ELSE external_id END)
  FROM places;

CREATE TRIGGER places_fts_ins AFTER INSERT ON places BEGIN
  INSERT INTO places_fts (rowid, label, description, address, external_id) VALUES ((NEW.user_id << 36) | NEW.id,
    lower(CASE WHEN instr(NEW.label, char(0)) THEN substr(NEW.label, 1, instr(NEW.label, char(0)) - 1) ELSE NEW.label END),
    lower(CASE WHEN instr(NEW.description, char(0)) THEN substr(NEW.description, 1, instr(NEW.description, char(0)) - 1) ELSE NEW.description END),
    lower(CASE WHEN instr(NEW.address, char(0)) THEN substr(NEW.address, 1, instr(NEW.address, char(0)) - 1) ELSE NEW.address END),
    lower(CASE WHEN instr(NEW.external_id, char(0)) THEN substr(NEW.external_id, 1, instr(NEW.external_id, char(0)) - 1) ELSE NEW.external_id END));
END;
CREATE TRIGGER places_fts_del AFTER DELETE ON places BEGIN
  DELETE FROM places_fts WHERE rowid = (OLD.user_id << 36) | OLD.id;
END;
CREATE TRIGGER places_fts_upd AFTER UPDATE OF user_id, label, description, address, external_id ON places
WHEN OLD.user_id IS NOT NEW.user_id OR OLD.label IS NOT NEW.label OR OLD.description IS NOT NEW.description
  OR OLD.address IS NOT NEW.address OR OLD.external_id IS NOT NEW.external_id
BEGIN
  DELETE FROM places_fts WHERE rowid = (OLD.user_id << 36) | OLD.id;
  INSERT INTO places_fts (rowid, label, description, address, external_id) VALUES ((NEW.user_id << 36) | NEW.id,
    lower(CASE WHEN instr(NEW.label, char(0)) THEN substr(NEW.label, 1, instr(NEW.label, char(0)) - 1) ELSE NEW.label END),
    lower(CASE WHEN instr(NEW.description, char(0)) THEN substr(NEW.description, 1, instr(NEW.description, char(0)) - 1) ELSE NEW.description END),
    lower(CASE WHEN instr(NEW.address, char(0)) THEN substr(NEW.address, 1, instr(NEW.address, char(0)) - 1) ELSE NEW.address END),
    lower(CASE WHEN instr(NEW.external_id, char(0)) THEN substr(NEW.external_id, 1, instr(NEW.external_id, char(0)) - 1) ELSE NEW.external_id END));
END;

-- 3. Indexes for filters and sorts (owner first; partial on tasks and checkpoints like those of 006).
-- Time window and sort by from: the id right after from_time gives ORDER BY from, id without a sort
-- step (a deep OFFSET walks the index only); to_time, status and tracker_id answer filters from it.
DROP INDEX tasks_list_from;
CREATE INDEX tasks_list_from ON tasks(user_id, from_time, id, to_time, status, tracker_id) WHERE type <> 'route';
-- Longest window of the owner's tasks: a window filter (to_time >= from AND from_time <= to) becomes
-- a range on from_time, from - longest .. to, instead of everything before `to`.
CREATE INDEX tasks_list_span ON tasks(user_id, (to_time - from_time)) WHERE type <> 'route';
-- Trackers with a sort by status and from (and counts by tracker with other filters).
CREATE INDEX tasks_list_tracker ON tasks(user_id, tracker_id, status, from_time) WHERE type <> 'route';
-- Places of an owner in id order (the default sort).
CREATE INDEX places_user ON places(user_id);
-- Recreated last, as in 006: among equally good indexes SQLite takes the newest, and for a filter no
-- index serves this one visits the owner's rows in table order.
DROP INDEX tasks_list_id;
CREATE INDEX tasks_list_id ON tasks(user_id) WHERE type <> 'route';

-- Statistics for the new indexes: without them, a database analyzed before this migration would
-- plan with measured figures for the old indexes and guesses for the new ones. (On a new, empty
-- database this records nothing.)
ANALYZE tasks;
ANALYZE places;
