-- Issue 23. 1) No id is handed out twice. SQLite gives a new row the largest id + 1, so deleting the
-- newest task (place, file, ...) handed its id to the next one: a client or an external system
-- holding the old id then read or changed another entity. Before this file runs, its code step
-- (src/store/rebuild.ts, CODE_STEPS[40]) rebuilt every entity table with AUTOINCREMENT, keeping its
-- definition, rows, ids, indexes and triggers (foreign keys off, all checked before commit).
-- AUTOINCREMENT rather than ids of our own making: SQLite keeps the largest id ever used in
-- sqlite_sequence in the same transaction as the insert, for every insert path we have, at the
-- cost of one small row update per insert.
--
-- The sequences start past the largest id present, and past every id surviving rows still name
-- without a foreign key (visits and tags of deleted zones, fixes of deleted sources, status changes
-- of deleted trackers, ...): ids deleted earlier whose traces are gone cannot be known any more.
UPDATE sqlite_sequence SET seq = MAX(seq,
  COALESCE((SELECT MAX(source_id) FROM fixes), 0), COALESCE((SELECT MAX(source_id) FROM fix_chunks), 0),
  COALESCE((SELECT MAX(source_id) FROM track_points), 0), COALESCE((SELECT MAX(source_id) FROM tracks), 0),
  COALESCE((SELECT MAX(source_id) FROM visits), 0), COALESCE((SELECT MAX(source_id) FROM events), 0),
  COALESCE((SELECT MAX(source_id) FROM device_state), 0), COALESCE((SELECT MAX(source_id) FROM telemetry_pending), 0),
  COALESCE((SELECT MAX(source_id) FROM telemetry_checkpoints), 0), COALESCE((SELECT MAX(source_id) FROM chat_messages), 0),
  COALESCE((SELECT MAX(source_id) FROM forward_log), 0), COALESCE((SELECT MAX(source_id) FROM retranslator_bindings), 0))
  WHERE name = 'sources';
UPDATE sqlite_sequence SET seq = MAX(seq,
  COALESCE((SELECT MAX(tracker_id) FROM status_changes), 0), COALESCE((SELECT MAX(tracker_id) FROM forms), 0),
  COALESCE((SELECT MAX(tracker_id) FROM checkins), 0), COALESCE((SELECT MAX(tracker_id) FROM app_task_feed), 0),
  COALESCE((SELECT MAX(tracker_id) FROM events), 0), COALESCE((SELECT MAX(tracker_id) FROM task_schedules), 0))
  WHERE name = 'trackers';
UPDATE sqlite_sequence SET seq = MAX(seq,
  COALESCE((SELECT MAX(geo_id) FROM visits WHERE kind = 'zone'), 0),
  COALESCE((SELECT MAX(entity_id) FROM entity_tags WHERE entity_type = 'zone'), 0))
  WHERE name = 'zones';
UPDATE sqlite_sequence SET seq = MAX(seq,
  COALESCE((SELECT MAX(geo_id) FROM visits WHERE kind = 'place'), 0),
  COALESCE((SELECT MAX(entity_id) FROM entity_tags WHERE entity_type = 'place'), 0),
  COALESCE((SELECT MAX(entity_id) FROM entity_field_values WHERE entity_type = 'place'), 0))
  WHERE name = 'places';
UPDATE sqlite_sequence SET seq = MAX(seq,
  COALESCE((SELECT MAX(geo_id) FROM visits WHERE kind = 'task'), 0),
  COALESCE((SELECT MAX(entity_id) FROM entity_tags WHERE entity_type = 'task'), 0),
  COALESCE((SELECT MAX(entity_id) FROM entity_field_values WHERE entity_type = 'task'), 0),
  COALESCE((SELECT MAX(task_id) FROM app_task_feed), 0))
  WHERE name = 'tasks';
UPDATE sqlite_sequence SET seq = MAX(seq,
  COALESCE((SELECT MAX(entity_id) FROM entity_tags WHERE entity_type = 'employee'), 0),
  COALESCE((SELECT MAX(entity_id) FROM entity_field_values WHERE entity_type = 'employee'), 0),
  COALESCE((SELECT MAX(employee_id) FROM chat_messages), 0), COALESCE((SELECT MAX(employee_id) FROM checkins), 0))
  WHERE name = 'employees';
UPDATE sqlite_sequence SET seq = MAX(seq,
  COALESCE((SELECT MAX(old_status_id) FROM status_changes), 0), COALESCE((SELECT MAX(new_status_id) FROM status_changes), 0))
  WHERE name = 'statuses';
UPDATE sqlite_sequence SET seq = MAX(seq, COALESCE((SELECT MAX(status_listing_id) FROM trackers), 0)) WHERE name = 'status_listings';
UPDATE sqlite_sequence SET seq = MAX(seq,
  COALESCE((SELECT MAX(form_template_id) FROM tasks), 0), COALESCE((SELECT MAX(form_template_id) FROM task_schedules), 0))
  WHERE name = 'form_templates';

-- 2) Uploads are all or nothing (docs/places-zones.md#uploads-all-or-nothing). place/upload and
-- zone/upload write their rows in many short transactions (the event loop keeps answering) with
-- no owner (user_id NULL: every read names an owner, so nobody sees them) and the upload's id; one
-- last transaction gives them their owner. A server that died mid-way deletes what an upload left
-- when it starts again (src/imports/staging.ts).
CREATE TABLE uploads (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL,              -- the owner the rows get on commit (no foreign key: kept until cleaned up)
  kind TEXT NOT NULL,                    -- place, zone
  started INTEGER NOT NULL               -- ms UTC
);
CREATE INDEX places_upload ON places(upload_id) WHERE upload_id IS NOT NULL;
CREATE INDEX zones_upload ON zones(upload_id) WHERE upload_id IS NOT NULL;

-- Ownerless rows are not counted nor indexed for search until they get their owner; their
-- (NULL << 36) | id rowid would otherwise be a new one. Showing an upload's rows (user_id NULL -> the
-- owner) indexes them for search row by row; the place counts and the geo versions move once for
-- all of them (UploadStore.commit): a commit of 5000 rows stays short. Deleting ownerless rows
-- touches neither (a full-text delete of a NULL rowid costs as much as a real one).
-- place/upload's updates of existing places are made in its last transaction too, marked with the
-- upload's id: their search entries are deleted in one statement and written again when the mark is
-- cleared (places_fts_refresh), instead of a delete and an insert a row (2-3 times slower).
-- The text a place's search entry holds (as migration 010 indexes it), in one place for the triggers below.
CREATE VIEW places_search_text (id, id_key, label, description, address, external_id) AS
  SELECT id, (user_id << 36) | id,
    lower(CASE WHEN instr(label, char(0)) THEN substr(label, 1, instr(label, char(0)) - 1) ELSE label END),
    lower(CASE WHEN instr(description, char(0)) THEN substr(description, 1, instr(description, char(0)) - 1) ELSE description END),
    lower(CASE WHEN instr(address, char(0)) THEN substr(address, 1, instr(address, char(0)) - 1) ELSE address END),
    lower(CASE WHEN instr(external_id, char(0)) THEN substr(external_id, 1, instr(external_id, char(0)) - 1) ELSE external_id END)
  FROM places WHERE user_id IS NOT NULL;
DROP TRIGGER place_counts_ins;
CREATE TRIGGER place_counts_ins AFTER INSERT ON places WHEN NEW.user_id IS NOT NULL BEGIN
  INSERT INTO place_counts (user_id, n) VALUES (NEW.user_id, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;
DROP TRIGGER place_counts_del;
CREATE TRIGGER place_counts_del AFTER DELETE ON places WHEN OLD.user_id IS NOT NULL BEGIN
  UPDATE place_counts SET n = n - 1 WHERE user_id = OLD.user_id;
END;
DROP TRIGGER place_counts_upd;
CREATE TRIGGER place_counts_upd AFTER UPDATE OF user_id ON places WHEN OLD.user_id IS NOT NEW.user_id AND OLD.user_id IS NOT NULL BEGIN
  UPDATE place_counts SET n = n - 1 WHERE user_id = OLD.user_id;
  INSERT INTO place_counts (user_id, n) VALUES (NEW.user_id, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;
DROP TRIGGER places_geo_upd;
CREATE TRIGGER places_geo_upd AFTER UPDATE ON places WHEN OLD.user_id IS NOT NULL BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
DROP TRIGGER places_areas_upd;
CREATE TRIGGER places_areas_upd AFTER UPDATE ON places WHEN OLD.user_id IS NOT NULL BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo_areas'; END;
DROP TRIGGER zones_geo_upd;
CREATE TRIGGER zones_geo_upd AFTER UPDATE ON zones WHEN OLD.user_id IS NOT NULL BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
DROP TRIGGER zones_areas_upd;
CREATE TRIGGER zones_areas_upd AFTER UPDATE ON zones WHEN OLD.user_id IS NOT NULL BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo_areas'; END;

DROP TRIGGER places_fts_ins;
CREATE TRIGGER places_fts_ins AFTER INSERT ON places WHEN NEW.user_id IS NOT NULL BEGIN
  INSERT INTO places_fts (rowid, label, description, address, external_id)
    SELECT id_key, label, description, address, external_id FROM places_search_text WHERE id = NEW.id;
END;
DROP TRIGGER places_fts_del;
CREATE TRIGGER places_fts_del AFTER DELETE ON places WHEN OLD.user_id IS NOT NULL BEGIN
  DELETE FROM places_fts WHERE rowid = (OLD.user_id << 36) | OLD.id;
END;
DROP TRIGGER places_fts_upd;
CREATE TRIGGER places_fts_upd AFTER UPDATE OF user_id, label, description, address, external_id ON places
WHEN NEW.user_id IS NOT NULL AND NEW.upload_id IS NULL AND (OLD.user_id IS NOT NEW.user_id OR OLD.label IS NOT NEW.label
  OR OLD.description IS NOT NEW.description OR OLD.address IS NOT NEW.address OR OLD.external_id IS NOT NEW.external_id)
BEGIN
  -- Nothing to delete for a row that gets its first owner.
  DELETE FROM places_fts WHERE OLD.user_id IS NOT NULL AND rowid = (OLD.user_id << 36) | OLD.id;
  INSERT INTO places_fts (rowid, label, description, address, external_id)
    SELECT id_key, label, description, address, external_id FROM places_search_text WHERE id = NEW.id;
END;
CREATE TRIGGER places_fts_refresh AFTER UPDATE OF upload_id ON places
WHEN OLD.upload_id IS NOT NULL AND NEW.upload_id IS NULL AND OLD.user_id IS NOT NULL AND NEW.user_id IS NOT NULL
BEGIN
  INSERT INTO places_fts (rowid, label, description, address, external_id)
    SELECT id_key, label, description, address, external_id FROM places_search_text WHERE id = NEW.id;
END;
