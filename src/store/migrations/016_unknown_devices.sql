-- The unknown-device list keeps only the newest entries (src/store/devices.ts trims it after each
-- batch): the index makes finding the newest, and what falls off, cheap. Lists that grew without
-- bound before this are cut to the newest 1000 here.
CREATE INDEX unknown_devices_last_seen ON unknown_devices (last_seen);
DELETE FROM unknown_devices WHERE rowid IN (SELECT rowid FROM unknown_devices ORDER BY last_seen DESC, rowid DESC LIMIT -1 OFFSET 1000);
