-- checkin/list sorted by employee (full name) or form (label) (issue 11, bench/checkins): the page
-- was read by groups of employee or form id, but finding the groups counted every check-in of the
-- user (a GROUP BY over 100,000 index entries, ~15 ms a call), and a check-in's form is its own (one
-- group per form). A check-in keeps the name it sorts by, kept by triggers, and an index per sort
-- walks to the page.
ALTER TABLE checkins ADD COLUMN employee_name TEXT;
ALTER TABLE checkins ADD COLUMN form_label TEXT;
UPDATE checkins SET
  employee_name = (SELECT TRIM(TRIM(e.first_name || ' ' || e.middle_name) || ' ' || e.last_name) FROM employees e WHERE e.id = checkins.employee_id),
  form_label = (SELECT f.label FROM forms f WHERE f.id = checkins.form_id)
  WHERE employee_id IS NOT NULL OR form_id IS NOT NULL;
CREATE TRIGGER checkins_names_ins AFTER INSERT ON checkins WHEN NEW.employee_id IS NOT NULL OR NEW.form_id IS NOT NULL BEGIN
  UPDATE checkins SET
    employee_name = (SELECT TRIM(TRIM(e.first_name || ' ' || e.middle_name) || ' ' || e.last_name) FROM employees e WHERE e.id = NEW.employee_id),
    form_label = (SELECT f.label FROM forms f WHERE f.id = NEW.form_id)
    WHERE id = NEW.id;
END;
-- A deleted form leaves its check-in (form_id SET NULL by the foreign key: an update).
CREATE TRIGGER checkins_form_label_upd AFTER UPDATE OF form_id ON checkins WHEN OLD.form_id IS NOT NEW.form_id BEGIN
  UPDATE checkins SET form_label = (SELECT f.label FROM forms f WHERE f.id = NEW.form_id) WHERE id = NEW.id;
END;
CREATE TRIGGER checkins_employee_name_upd AFTER UPDATE OF first_name, middle_name, last_name ON employees
  WHEN OLD.first_name IS NOT NEW.first_name OR OLD.middle_name IS NOT NEW.middle_name OR OLD.last_name IS NOT NEW.last_name BEGIN
  UPDATE checkins SET employee_name = TRIM(TRIM(NEW.first_name || ' ' || NEW.middle_name) || ' ' || NEW.last_name)
    WHERE user_id = NEW.user_id AND employee_id = NEW.id;
END;
CREATE TRIGGER checkins_employee_name_del AFTER DELETE ON employees BEGIN
  UPDATE checkins SET employee_name = NULL WHERE user_id = OLD.user_id AND employee_id = OLD.id;
END;
CREATE INDEX checkins_user_employee_name ON checkins(user_id, employee_name COLLATE NOCASE);
CREATE INDEX checkins_user_form_label ON checkins(user_id, form_label COLLATE NOCASE);
