-- Shared by the directories (issue 4): tags on any entity, custom field definitions and values,
-- and the 'geo' change counter the geofence index watches (zones, places, task zones bump it by
-- triggers in their own migrations).

-- Tags on places, zones, employees and tasks (trackers keep tracker_tags, which has ordinals).
CREATE TABLE entity_tags (
  entity_type TEXT NOT NULL,            -- place, zone, employee, task
  entity_id INTEGER NOT NULL,
  tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  PRIMARY KEY (entity_type, entity_id, tag_id)
);
CREATE INDEX entity_tags_tag ON entity_tags(tag_id, entity_type);

-- Custom fields ("entity fields"): a user's definitions per entity type; values keyed by field id.
CREATE TABLE entity_fields (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  entity_type TEXT NOT NULL,            -- place, task, employee
  label TEXT NOT NULL,
  type TEXT NOT NULL,                   -- text, number, boolean, date, responsible_employee
  required INTEGER NOT NULL DEFAULT 0,
  ordinal INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX entity_fields_user ON entity_fields(user_id, entity_type);

CREATE TABLE entity_field_values (
  entity_type TEXT NOT NULL,
  entity_id INTEGER NOT NULL,
  field_id INTEGER NOT NULL REFERENCES entity_fields(id) ON DELETE CASCADE,
  value TEXT,                           -- JSON of the value
  text TEXT,                            -- the value as text, for filtering and sorting
  PRIMARY KEY (entity_type, entity_id, field_id)
);
CREATE INDEX entity_field_values_field ON entity_field_values(field_id, text);

CREATE TRIGGER tags_ins AFTER INSERT ON tags BEGIN UPDATE versions SET value = value + 1 WHERE name = 'trackers'; END;

INSERT INTO versions (name, value) VALUES ('geo', 1);
