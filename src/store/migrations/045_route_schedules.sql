-- Route schedules (issue 23, docs/schedules.md "Route schedules"): task/schedule/route/* as
-- documented. A route schedule and its checkpoint schedules are rows of task_schedules, so they
-- share the documented id space of task/schedule/read ("task, route or checkpoint schedule").
-- type 'route': the route's label, tags, tracker and days; its location and window columns hold its
-- first checkpoint's place and the span of its checkpoints' windows (the runner's "is this day
-- over" check). type 'checkpoint': one stop, in `ord` order under `parent_id`, carrying its route's
-- days, tracker and days_ahead; the runner never runs it on its own. Deleting a route schedule
-- deletes its checkpoints (and, as before, its created days; the created routes stay).
ALTER TABLE task_schedules ADD COLUMN type TEXT NOT NULL DEFAULT 'task' CHECK (type IN ('task', 'route', 'checkpoint'));
ALTER TABLE task_schedules ADD COLUMN parent_id INTEGER REFERENCES task_schedules(id) ON DELETE CASCADE;
ALTER TABLE task_schedules ADD COLUMN ord INTEGER;
CREATE INDEX task_schedules_parent ON task_schedules(parent_id, ord) WHERE parent_id IS NOT NULL;
