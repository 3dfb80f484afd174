-- Device data (issue 3): fixes, the latest state of each device, unknown devices, chat.

-- Every record a device sent, keyed by (source, fix time). One row per instant: a record that
-- repeats an instant (a resend after a lost ACK, or a status record at the time of a fix) is merged
-- into the stored one. lat/lng NULL: a status record (attributes only).
-- flags: bit 0 valid, bit 1 located by GSM LBS, bit 2 archive (buffered data).
CREATE TABLE fixes (
  source_id INTEGER NOT NULL,
  time INTEGER NOT NULL,
  lat REAL,
  lng REAL,
  alt REAL,
  speed REAL,            -- km/h
  course REAL,
  satellites INTEGER,
  hdop REAL,
  precision REAL,        -- metres
  flags INTEGER NOT NULL DEFAULT 0,
  received INTEGER NOT NULL,
  attrs TEXT,            -- JSON object of the record's attributes (and cells), or NULL
  PRIMARY KEY (source_id, time)
) WITHOUT ROWID;

-- The latest state of each device, kept in the same transaction as its fixes.
CREATE TABLE device_state (
  source_id INTEGER PRIMARY KEY,
  -- last valid GNSS fix (GSM LBS fixes excluded)
  fix_time INTEGER,
  lat REAL,
  lng REAL,
  alt REAL,
  speed REAL,
  course REAL,
  satellites INTEGER,
  precision REAL,
  -- last record of any kind
  last_time INTEGER,
  -- latest value of every attribute: JSON {name: [value, time]}
  attrs TEXT NOT NULL DEFAULT '{}',
  updated INTEGER NOT NULL
);

CREATE TABLE unknown_devices (
  device_id TEXT NOT NULL,
  protocol TEXT NOT NULL,
  address TEXT NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  count INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (device_id, protocol)
);

-- Chat with trackers. OUTGOING messages wait as PENDING until delivered through the device's protocol.
CREATE TABLE chat_messages (
  id INTEGER PRIMARY KEY,
  tracker_id INTEGER NOT NULL REFERENCES trackers(id),
  source_id INTEGER NOT NULL,
  type TEXT NOT NULL,                 -- INCOMING, OUTGOING
  status TEXT NOT NULL,               -- PENDING, DELIVERED
  text TEXT NOT NULL,
  submit_time INTEGER NOT NULL,
  update_time INTEGER,
  employee_id INTEGER,
  is_read INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX chat_tracker_time ON chat_messages(tracker_id, submit_time);
CREATE INDEX chat_pending ON chat_messages(source_id, status) WHERE status = 'PENDING';
