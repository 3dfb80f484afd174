-- File uploads (issue 11, docs/files.md): the one-time token the upload URL's POST must carry, and
-- whether a small JPEG preview was made beside the blob (images only). storage_key is looked up by
-- avatar name and by the blob collector.
ALTER TABLE files ADD COLUMN upload_token TEXT;
ALTER TABLE files ADD COLUMN preview INTEGER NOT NULL DEFAULT 0;
CREATE INDEX files_storage_key ON files(storage_key) WHERE storage_key IS NOT NULL;
CREATE INDEX files_form_field_open ON files(form_id, field_id, submitted);
-- checkin/list in id order over one user's check-ins reads this index (rows by rowid per user).
CREATE INDEX checkins_user ON checkins(user_id);
-- checkin/list (docs/checkins.md): sorts and filters over one user's rows read from an index, and
-- the check-ins per (user, tracker) kept by triggers so an unfiltered or tracker-only count is a sum.
CREATE INDEX checkins_user_address ON checkins(user_id, address COLLATE NOCASE);
CREATE INDEX checkins_user_comment ON checkins(user_id, comment COLLATE NOCASE);
CREATE INDEX checkins_user_employee ON checkins(user_id, employee_id);
CREATE INDEX checkins_user_form ON checkins(user_id, form_id);
CREATE INDEX checkins_user_lat ON checkins(user_id, lat);
CREATE TABLE checkin_counts (
  user_id INTEGER NOT NULL,
  tracker_id INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (user_id, tracker_id)
) WITHOUT ROWID;
INSERT INTO checkin_counts (user_id, tracker_id, n) SELECT user_id, tracker_id, COUNT(*) FROM checkins GROUP BY user_id, tracker_id;
CREATE TRIGGER checkins_count_ins AFTER INSERT ON checkins BEGIN
  INSERT INTO checkin_counts (user_id, tracker_id, n) VALUES (NEW.user_id, NEW.tracker_id, 1)
    ON CONFLICT (user_id, tracker_id) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER checkins_count_del AFTER DELETE ON checkins BEGIN
  UPDATE checkin_counts SET n = n - 1 WHERE user_id = OLD.user_id AND tracker_id = OLD.tracker_id;
END;
