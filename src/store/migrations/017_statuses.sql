-- Working statuses (issue 11, docs/statuses.md): a user's status listings, their ordered statuses,
-- each tracker's current status (trackers.status_listing_id names its listing) and the history of
-- status changes with their origin (supervisor through the API, employee through the field app).
CREATE TABLE status_listings (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  label TEXT NOT NULL,
  employee_controlled INTEGER NOT NULL DEFAULT 0,
  supervisor_controlled INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX status_listings_user ON status_listings(user_id);

-- ordinal: the place in the listing's `entries` (0-based, rewritten whole by listing update).
CREATE TABLE statuses (
  id INTEGER PRIMARY KEY,
  listing_id INTEGER NOT NULL REFERENCES status_listings(id) ON DELETE CASCADE,
  label TEXT NOT NULL,
  color TEXT NOT NULL,
  ordinal INTEGER NOT NULL
);
CREATE INDEX statuses_listing ON statuses(listing_id, ordinal);

-- A row only while the tracker has a current status; deleting the status clears it.
CREATE TABLE tracker_statuses (
  tracker_id INTEGER PRIMARY KEY,
  status_id INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE
);
CREATE INDEX tracker_statuses_status ON tracker_statuses(status_id);

-- History: status ids are kept as plain numbers (no reference), so a record outlives its statuses.
CREATE TABLE status_changes (
  id INTEGER PRIMARY KEY,
  tracker_id INTEGER NOT NULL,
  old_status_id INTEGER,
  new_status_id INTEGER,
  lat REAL,
  lng REAL,
  address TEXT NOT NULL DEFAULT '',
  changed INTEGER NOT NULL,
  origin TEXT NOT NULL CHECK (origin IN ('employee', 'supervisor'))
);
CREATE INDEX status_changes_tracker ON status_changes(tracker_id, id);
