-- Field service (issue 11): form templates, the forms made from them (one per task, or one per
-- check-in), check-ins, and the files clients upload for form fields, check-ins and avatars.
-- Times are ms UTC like everywhere else. Later migrations may add columns; these are the contract the
-- forms (src/forms), files (src/files) and check-in (src/checkins) code share.

-- fields: the JSON array of field definitions (docs/forms.md); version grows on every change.
CREATE TABLE form_templates (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  label TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  fields TEXT NOT NULL,
  submit_in_zone INTEGER NOT NULL DEFAULT 0,
  version INTEGER NOT NULL DEFAULT 1,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL
);
CREATE INDEX form_templates_user ON form_templates(user_id);

-- A form is a copy of its template at creation (label, description, fields, submit_in_zone,
-- template_version), so later template edits never change a form already attached.
-- task_id: the task it is attached to (at most one form per task); null for a check-in's form.
-- values_json: the submitted values as JSON (null until submitted); submitted: last submission time.
CREATE TABLE forms (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  template_id INTEGER REFERENCES form_templates(id) ON DELETE SET NULL,
  template_version INTEGER NOT NULL,
  label TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  fields TEXT NOT NULL,
  submit_in_zone INTEGER NOT NULL DEFAULT 0,
  task_id INTEGER UNIQUE REFERENCES tasks(id) ON DELETE CASCADE,
  tracker_id INTEGER,
  created INTEGER NOT NULL,
  values_json TEXT,
  submitted INTEGER,
  submit_lat REAL,
  submit_lng REAL,
  submit_address TEXT NOT NULL DEFAULT ''
);
CREATE INDEX forms_user_template ON forms(user_id, template_id);
CREATE INDEX forms_user_submitted ON forms(user_id, submitted);

-- Check-ins are created by the field app (docs/field-app.md), read and deleted through /checkin.
CREATE TABLE checkins (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  tracker_id INTEGER NOT NULL,
  employee_id INTEGER,
  marker_time INTEGER NOT NULL,
  lat REAL NOT NULL,
  lng REAL NOT NULL,
  address TEXT NOT NULL DEFAULT '',
  precision INTEGER,
  comment TEXT,
  form_id INTEGER REFERENCES forms(id) ON DELETE SET NULL
);
CREATE INDEX checkins_user_time ON checkins(user_id, marker_time);
CREATE INDEX checkins_tracker_time ON checkins(tracker_id, marker_time);

-- Files (the spec's File object). state: created -> in_progress -> uploaded; a file not uploaded
-- before `expires` is deleted. max_size: the upload limit fixed at creation (the File object's size
-- until uploaded). storage_key: where the bytes are under the data directory (null until uploaded).
-- What the file belongs to: a form field (form_id, field_id; submitted once the form's values name
-- it), a check-in (checkin_id), or an avatar (avatar_of: 'place' | 'employee' | 'tracker').
CREATE TABLE files (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  type TEXT NOT NULL CHECK (type IN ('image', 'file')),
  state TEXT NOT NULL DEFAULT 'created' CHECK (state IN ('created', 'in_progress', 'uploaded')),
  name TEXT NOT NULL DEFAULT '',
  max_size INTEGER NOT NULL,
  size INTEGER,
  mime_type TEXT NOT NULL DEFAULT 'application/octet-stream',
  metadata TEXT,
  created INTEGER NOT NULL,
  uploaded INTEGER,
  expires INTEGER,
  storage_key TEXT,
  form_id INTEGER REFERENCES forms(id) ON DELETE CASCADE,
  field_id TEXT,
  submitted INTEGER NOT NULL DEFAULT 0,
  checkin_id INTEGER REFERENCES checkins(id) ON DELETE CASCADE,
  avatar_of TEXT CHECK (avatar_of IN ('place', 'employee', 'tracker'))
);
CREATE INDEX files_user ON files(user_id);
CREATE INDEX files_form ON files(form_id, field_id);
CREATE INDEX files_checkin ON files(checkin_id);
CREATE INDEX files_expires ON files(expires) WHERE state <> 'uploaded';
