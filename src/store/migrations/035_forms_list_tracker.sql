-- task/form/list ordered by employee name (issue 11, bench/forms): the page is read by trackers in
-- their employees' name order (src/store/name-groups.ts). This index gives the matches counted per
-- tracker without sorting them, and one tracker's forms in id order (the ties' order), so a page
-- reads about its own rows instead of the template's every form (the planner otherwise walked
-- forms_user_template in id order, reading ~50 full rows per row kept).
CREATE INDEX forms_list_tracker ON forms(user_id, template_id, tracker_id, id, submitted, task_id) WHERE task_id IS NOT NULL;
