-- task/form/list filtered by task_label or task_address (issue 11, bench/forms): a '%…%' match no
-- index can serve tested every form of the template through a probe into its task (~10 ms of a
-- 16 ms call over 8,000 forms). The form keeps its task's label and address (by trigger, as it keeps
-- its tracker, migration 028) and the template's list index carries them, so the filter reads index
-- entries only.
-- The field app's feed (migration 021) follows what the app shows of a form; these two copies of
-- the task's text are not that (the task's own change is fed already): its update trigger now names
-- the columns it follows, so neither this backfill nor the triggers below write feed rows.
DROP TRIGGER app_feed_form_upd;
CREATE TRIGGER app_feed_form_upd AFTER UPDATE OF id, user_id, template_id, template_version, label, description, fields,
  submit_in_zone, task_id, tracker_id, created, values_json, submitted, submit_lat, submit_lng, submit_address,
  first_submitted, submit_origin ON forms WHEN NEW.task_id IS NOT NULL BEGIN
  INSERT INTO app_task_feed (tracker_id, task_id, at)
    SELECT tracker_id, id, CAST(unixepoch('subsec') * 1000 AS INTEGER) FROM tasks WHERE id = NEW.task_id AND tracker_id IS NOT NULL;
END;

ALTER TABLE forms ADD COLUMN task_label TEXT;
ALTER TABLE forms ADD COLUMN task_address TEXT;
UPDATE forms SET (task_label, task_address) = (SELECT t.label, t.address FROM tasks t WHERE t.id = forms.task_id)
  WHERE task_id IS NOT NULL;
CREATE TRIGGER forms_task_text_ins AFTER INSERT ON forms WHEN NEW.task_id IS NOT NULL BEGIN
  UPDATE forms SET (task_label, task_address) = (SELECT t.label, t.address FROM tasks t WHERE t.id = NEW.task_id) WHERE id = NEW.id;
END;
CREATE TRIGGER forms_follow_task_text AFTER UPDATE OF label, address ON tasks
  WHEN OLD.label IS NOT NEW.label OR OLD.address IS NOT NEW.address BEGIN
  UPDATE forms SET task_label = NEW.label, task_address = NEW.address WHERE task_id = NEW.id;
END;

DROP INDEX forms_list_template;
CREATE INDEX forms_list_template ON forms(user_id, template_id, submitted, id, tracker_id, task_id, task_label, task_address) WHERE task_id IS NOT NULL;
