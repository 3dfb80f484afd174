-- A check-in file announced for a tracker (by its field app, or by a user naming tracker_id) belongs
-- to that tracker until it is bound: only that tracker's check-in may carry it (issue 23, docs/files.md).
-- NULL: announced without a tracker; any check-in of the owner may carry it.
ALTER TABLE files ADD COLUMN tracker_id INTEGER;
