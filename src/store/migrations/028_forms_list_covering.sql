-- task/form/list ordered or filtered by who submitted (employee_full_name, tracker_label) or by a task
-- column (issue 11, bench/forms): reading each matching form's and task's full row cost ~1.5 µs a
-- row (forms carry their fields JSON), most of a 30 ms answer over 8,000 matches. These indexes let
-- the sort and the count read index entries only.

-- A form's tracker is kept filled (the submitter's, else its task's), so the list no longer joins the
-- task to find it: the form follows its task's tracker until it is submitted (and a submitted form
-- without a tracker takes the task's, as the list showed it before).
UPDATE forms SET tracker_id = (SELECT t.tracker_id FROM tasks t WHERE t.id = forms.task_id)
  WHERE task_id IS NOT NULL AND (submitted IS NULL OR tracker_id IS NULL);
CREATE TRIGGER forms_follow_task_tracker AFTER UPDATE OF tracker_id ON tasks BEGIN
  UPDATE forms SET tracker_id = NEW.tracker_id WHERE task_id = NEW.id AND (submitted IS NULL OR tracker_id IS NULL);
END;

DROP INDEX forms_list_template;
DROP INDEX forms_list_submitted;
CREATE INDEX forms_list_template ON forms(user_id, template_id, submitted, id, tracker_id, task_id) WHERE task_id IS NOT NULL;
CREATE INDEX forms_list_submitted ON forms(user_id, submitted, id, tracker_id, task_id) WHERE task_id IS NOT NULL;
-- The task columns the list filters by text, reachable by task id without the task's row.
CREATE INDEX tasks_form_list ON tasks(id, tracker_id, label, address);
