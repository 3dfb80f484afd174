-- Forms (issue 11; docs/forms.md). first_submitted: the FIRST submission, which the task outcome
-- counts (a resubmission never moves a completion later; docs/tasks.md); submitted stays the last.
-- submit_origin: who submitted last ('employee' through the field app, 'supervisor' through the API).
ALTER TABLE forms ADD COLUMN first_submitted INTEGER;
ALTER TABLE forms ADD COLUMN submit_origin TEXT;

-- task/form/list: the owner's task forms of a template in submission order (the default order and
-- the common filter) straight from the index, and the task_ids form through the task_id key.
CREATE INDEX forms_list_template ON forms(user_id, template_id, submitted, id) WHERE task_id IS NOT NULL;
CREATE INDEX forms_list_submitted ON forms(user_id, submitted, id) WHERE task_id IS NOT NULL;

-- The version of zones and places alone ('geo' also moves with every task change): the API's index of
-- them (submit_places of task/form/list, src/telemetry/geofence/at-point.ts) is rebuilt only when
-- a zone or place changes, not whenever a task is created.
INSERT INTO versions (name, value) VALUES ('geo_areas', 1);
CREATE TRIGGER places_areas_ins AFTER INSERT ON places BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo_areas'; END;
CREATE TRIGGER places_areas_upd AFTER UPDATE ON places BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo_areas'; END;
CREATE TRIGGER places_areas_del AFTER DELETE ON places BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo_areas'; END;
CREATE TRIGGER zones_areas_ins AFTER INSERT ON zones BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo_areas'; END;
CREATE TRIGGER zones_areas_upd AFTER UPDATE ON zones BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo_areas'; END;
CREATE TRIGGER zones_areas_del AFTER DELETE ON zones BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo_areas'; END;
CREATE TRIGGER zone_points_areas_ins AFTER INSERT ON zone_points BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo_areas'; END;
CREATE TRIGGER zone_points_areas_upd AFTER UPDATE ON zone_points BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo_areas'; END;
CREATE TRIGGER zone_points_areas_del AFTER DELETE ON zone_points BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo_areas'; END;
