-- File uploads (issue 11, docs/files.md): the one-time token the upload URL's POST must carry, and
-- whether a small JPEG preview was made beside the blob (images only). storage_key is looked up by
-- avatar name and by the blob collector.
ALTER TABLE files ADD COLUMN upload_token TEXT;
ALTER TABLE files ADD COLUMN preview INTEGER NOT NULL DEFAULT 0;
CREATE INDEX files_storage_key ON files(storage_key) WHERE storage_key IS NOT NULL;
CREATE INDEX files_form_field_open ON files(form_id, field_id, submitted);
-- checkin/list in id order over one user's check-ins reads this index (rows by rowid per user).
CREATE INDEX checkins_user ON checkins(user_id);
