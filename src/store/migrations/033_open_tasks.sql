-- The minute timer of the task judge (src/telemetry/task-judge.ts) reads the open tasks (assigned or
-- arrived) in id order, a slice at a time: this partial index holds only those, so a round costs the
-- open tasks, not every task ever made.
CREATE INDEX tasks_open ON tasks(id) WHERE type <> 'route' AND tracker_id IS NOT NULL AND status IN ('assigned', 'arrived');
