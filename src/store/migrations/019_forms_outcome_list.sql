-- Forms (issue 11; docs/forms.md). first_submitted: the FIRST submission, which the task outcome
-- counts (a resubmission never moves a completion later; docs/tasks.md); submitted stays the last.
-- submit_origin: who submitted last ('employee' through the field app, 'supervisor' through the API).
ALTER TABLE forms ADD COLUMN first_submitted INTEGER;
ALTER TABLE forms ADD COLUMN submit_origin TEXT;

-- task/form/list: the owner's task forms of a template in submission order (the default order and
-- the common filter) straight from the index, and the task_ids form through the task_id key.
CREATE INDEX forms_list_template ON forms(user_id, template_id, submitted, id) WHERE task_id IS NOT NULL;
CREATE INDEX forms_list_submitted ON forms(user_id, submitted, id) WHERE task_id IS NOT NULL;
