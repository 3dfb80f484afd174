-- The documented shapes of calls we share with the public API (issue 23; docs/api.md "Where we
-- differ from the public documentation").
--
-- Form templates have a `default` member (the template chosen for new tasks with a form).
ALTER TABLE form_templates ADD COLUMN is_default INTEGER NOT NULL DEFAULT 0;

-- Choices of checkbox groups, dropdowns and radio groups are objects {label} as documented; stored
-- templates and forms made before held bare strings. Rewritten here once, in field order.
CREATE TEMP TABLE choice_fix AS
  SELECT 'template' AS kind, id, fields FROM form_templates WHERE fields LIKE '%"checkbox_group"%' OR fields LIKE '%"dropdown"%' OR fields LIKE '%"radio_group"%'
  UNION ALL
  SELECT 'form', id, fields FROM forms WHERE fields LIKE '%"checkbox_group"%' OR fields LIKE '%"dropdown"%' OR fields LIKE '%"radio_group"%';
UPDATE choice_fix SET fields = (
  SELECT json_group_array(json(CASE WHEN f.type = 'object' AND json_extract(f.value, '$.type') IN ('checkbox_group', 'dropdown', 'radio_group') THEN
    json_set(f.value, c.path, json((
      SELECT json_group_array(json(CASE WHEN g.type = 'text' THEN json_object('label', g.value) ELSE g.value END) ORDER BY g.key)
      FROM json_each(f.value, c.path) g)))
    ELSE f.value END) ORDER BY f.key)
  FROM json_each(choice_fix.fields) f,
    (SELECT CASE json_extract(f2.value, '$.type') WHEN 'checkbox_group' THEN '$.group' ELSE '$.options' END AS path, f2.key AS k FROM json_each(choice_fix.fields) f2) c
  WHERE c.k = f.key);
UPDATE form_templates SET fields = (SELECT x.fields FROM choice_fix x WHERE x.kind = 'template' AND x.id = form_templates.id)
  WHERE id IN (SELECT id FROM choice_fix WHERE kind = 'template');
UPDATE forms SET fields = (SELECT x.fields FROM choice_fix x WHERE x.kind = 'form' AND x.id = forms.id)
  WHERE id IN (SELECT id FROM choice_fix WHERE kind = 'form');
DROP TABLE choice_fix;

-- Task schedules take the documented `duration` (minutes from from_time; null: the schedule was
-- made with our older `to_time`, a wall-clock end) and keep `min_arrival_duration`.
ALTER TABLE task_schedules ADD COLUMN duration INTEGER;
ALTER TABLE task_schedules ADD COLUMN min_arrival_duration INTEGER NOT NULL DEFAULT 0;

-- Report schedules: the documented days a schedule fires on (`parameters.schedule`, JSON
-- {type: weekdays|month_days, ...}; null: our defaults, every day / Mondays / the 1st) and the
-- last report queued (answered as `last_result`).
ALTER TABLE report_schedules ADD COLUMN run_days TEXT;
ALTER TABLE report_schedules ADD COLUMN last_report_id INTEGER;

-- Zones answer the documented `bounds`: the box of a polygon's or sausage's points, kept with the
-- zone when its points are written (a circle's comes from its center and radius).
ALTER TABLE zones ADD COLUMN min_lat REAL;
ALTER TABLE zones ADD COLUMN max_lat REAL;
ALTER TABLE zones ADD COLUMN min_lng REAL;
ALTER TABLE zones ADD COLUMN max_lng REAL;
UPDATE zones SET (min_lat, max_lat, min_lng, max_lng) = (SELECT MIN(lat), MAX(lat), MIN(lng), MAX(lng) FROM zone_points p WHERE p.zone_id = zones.id)
  WHERE type <> 'circle';

-- Employees keep the documented driver_license_issue_date (yyyy-MM-dd or null) and ssn.
ALTER TABLE employees ADD COLUMN driver_license_issue_date TEXT;
ALTER TABLE employees ADD COLUMN ssn TEXT NOT NULL DEFAULT '';
