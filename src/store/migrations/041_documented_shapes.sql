-- The documented shapes of calls we share with the public API (issue 23; docs/api.md "Where we
-- differ from the public documentation").
--
-- Form templates have a `default` member (the template chosen for new tasks with a form).
ALTER TABLE form_templates ADD COLUMN is_default INTEGER NOT NULL DEFAULT 0;

-- Choices of checkbox groups, dropdowns and radio groups are objects {label} as documented; stored
-- templates and forms made before held bare strings. Rewritten here once, in field order.
UPDATE form_templates SET fields = (
  SELECT json_group_array(json(CASE
    WHEN json_extract(f.value, '$.type') = 'checkbox_group' THEN json_set(f.value, '$.group', json((
      SELECT json_group_array(json(CASE WHEN g.type = 'text' THEN json_object('label', g.value) ELSE g.value END) ORDER BY g.key)
      FROM json_each(f.value, '$.group') g)))
    WHEN json_extract(f.value, '$.type') IN ('dropdown', 'radio_group') THEN json_set(f.value, '$.options', json((
      SELECT json_group_array(json(CASE WHEN g.type = 'text' THEN json_object('label', g.value) ELSE g.value END) ORDER BY g.key)
      FROM json_each(f.value, '$.options') g)))
    ELSE f.value END) ORDER BY f.key)
  FROM json_each(form_templates.fields) f)
WHERE fields LIKE '%"checkbox_group"%' OR fields LIKE '%"dropdown"%' OR fields LIKE '%"radio_group"%';

UPDATE forms SET fields = (
  SELECT json_group_array(json(CASE
    WHEN json_extract(f.value, '$.type') = 'checkbox_group' THEN json_set(f.value, '$.group', json((
      SELECT json_group_array(json(CASE WHEN g.type = 'text' THEN json_object('label', g.value) ELSE g.value END) ORDER BY g.key)
      FROM json_each(f.value, '$.group') g)))
    WHEN json_extract(f.value, '$.type') IN ('dropdown', 'radio_group') THEN json_set(f.value, '$.options', json((
      SELECT json_group_array(json(CASE WHEN g.type = 'text' THEN json_object('label', g.value) ELSE g.value END) ORDER BY g.key)
      FROM json_each(f.value, '$.options') g)))
    ELSE f.value END) ORDER BY f.key)
  FROM json_each(forms.fields) f)
WHERE fields LIKE '%"checkbox_group"%' OR fields LIKE '%"dropdown"%' OR fields LIKE '%"radio_group"%';

-- Task schedules take the documented `duration` (minutes from from_time; null: the schedule was
-- made with our older `to_time`, a wall-clock end) and keep `min_arrival_duration`.
ALTER TABLE task_schedules ADD COLUMN duration INTEGER;
ALTER TABLE task_schedules ADD COLUMN min_arrival_duration INTEGER NOT NULL DEFAULT 0;
