-- Accounts, sessions, tariffs and trackers (issue 2). Times are UTC milliseconds since the epoch.

CREATE TABLE dealers (
  id INTEGER PRIMARY KEY,
  label TEXT NOT NULL,
  blocked INTEGER NOT NULL DEFAULT 0
);

-- A tariff says what a user (quotas, maps) or a tracker (features, storage) may do.
CREATE TABLE tariffs (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  has_reports INTEGER NOT NULL DEFAULT 1,
  has_tasks INTEGER NOT NULL DEFAULT 1,
  has_chat INTEGER NOT NULL DEFAULT 1,
  has_statuses INTEGER NOT NULL DEFAULT 1,
  max_places INTEGER NOT NULL DEFAULT 10000,
  max_zones INTEGER NOT NULL DEFAULT 10000,
  max_statuses INTEGER NOT NULL DEFAULT 100,
  max_retranslators INTEGER NOT NULL DEFAULT 10,
  max_map_layers INTEGER NOT NULL DEFAULT 50,
  max_time_span_days INTEGER NOT NULL DEFAULT 31,
  track_storage_days INTEGER NOT NULL DEFAULT 365,
  allowed_maps TEXT NOT NULL DEFAULT '["osm"]',
  premium_gis INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  parent_id INTEGER REFERENCES users(id),          -- master of a sub-user; NULL for masters
  dealer_id INTEGER NOT NULL REFERENCES dealers(id),
  tariff_id INTEGER NOT NULL REFERENCES tariffs(id),
  login TEXT NOT NULL,
  login_key TEXT NOT NULL UNIQUE,                   -- lower-cased login, for look-ups
  password_hash TEXT NOT NULL,
  rights TEXT NOT NULL DEFAULT '[]',                -- JSON array of right names (sub-users)
  dealer_blocked INTEGER NOT NULL DEFAULT 0,
  demo INTEGER NOT NULL DEFAULT 0,
  activated INTEGER NOT NULL DEFAULT 1,
  activation_sent_at INTEGER,
  title TEXT NOT NULL DEFAULT '',
  phone TEXT NOT NULL DEFAULT '',
  locale TEXT NOT NULL DEFAULT 'en',
  time_zone TEXT NOT NULL DEFAULT 'UTC',
  measurement_system TEXT NOT NULL DEFAULT 'metric',
  legal_type TEXT NOT NULL DEFAULT 'individual',
  default_geocoder TEXT NOT NULL DEFAULT 'geocoder_type_1',
  route_provider TEXT NOT NULL DEFAULT 'route_provider_1',
  balance REAL NOT NULL DEFAULT 0,
  bonus REAL NOT NULL DEFAULT 0,
  first_name TEXT NOT NULL DEFAULT '',
  middle_name TEXT NOT NULL DEFAULT '',
  last_name TEXT NOT NULL DEFAULT '',
  legal_name TEXT,
  tin TEXT NOT NULL DEFAULT '',
  iec TEXT,
  post_country TEXT NOT NULL DEFAULT '',
  post_region TEXT NOT NULL DEFAULT '',
  post_index TEXT NOT NULL DEFAULT '',
  post_city TEXT NOT NULL DEFAULT '',
  post_street_address TEXT NOT NULL DEFAULT '',
  registered_country TEXT NOT NULL DEFAULT '',
  registered_region TEXT NOT NULL DEFAULT '',
  registered_index TEXT NOT NULL DEFAULT '',
  registered_city TEXT NOT NULL DEFAULT '',
  registered_street_address TEXT NOT NULL DEFAULT '',
  creation_date INTEGER NOT NULL
);
CREATE INDEX users_parent ON users(parent_id);

-- type: user (a normal session), activation (from an activation e-mail), delivery.
CREATE TABLE sessions (
  hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  created INTEGER NOT NULL,
  last_used INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id, type);

-- Failed logins, per login and per address, counted over a sliding window.
CREATE TABLE auth_failures (
  key TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX auth_failures_key ON auth_failures(key, at);

-- A source is the physical device; a tracker is a user's view of it (a clone is a second one).
CREATE TABLE sources (
  id INTEGER PRIMARY KEY,
  device_id TEXT NOT NULL UNIQUE,
  model TEXT NOT NULL DEFAULT '',
  protocol TEXT NOT NULL,
  blocked INTEGER NOT NULL DEFAULT 0,
  tariff_id INTEGER NOT NULL REFERENCES tariffs(id),
  phone TEXT,
  has_gsm INTEGER NOT NULL DEFAULT 1,
  bundled_sim INTEGER NOT NULL DEFAULT 0,
  apn_name TEXT,
  apn_user TEXT,
  apn_password TEXT,
  corrupted INTEGER NOT NULL DEFAULT 0,
  first_seen INTEGER,
  last_seen INTEGER,
  creation_date INTEGER NOT NULL,
  tariff_end_date INTEGER
);
CREATE INDEX sources_phone ON sources(phone);

CREATE TABLE trackers (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  source_id INTEGER NOT NULL REFERENCES sources(id),
  label TEXT NOT NULL,
  clone INTEGER NOT NULL DEFAULT 0,
  deleted INTEGER NOT NULL DEFAULT 0,
  status_listing_id INTEGER,
  avatar_file_name TEXT
);
CREATE INDEX trackers_user ON trackers(user_id, deleted);
CREATE INDEX trackers_source ON trackers(source_id);

CREATE TABLE tags (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  name TEXT NOT NULL,
  color TEXT NOT NULL DEFAULT '27A9E3'
);
CREATE INDEX tags_user ON tags(user_id);

CREATE TABLE tracker_tags (
  tracker_id INTEGER NOT NULL REFERENCES trackers(id) ON DELETE CASCADE,
  tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL CHECK (ordinal BETWEEN 1 AND 5),
  PRIMARY KEY (tracker_id, tag_id),
  UNIQUE (tracker_id, ordinal)
);

-- Entities that keep a tracker from being deleted (tracker/delete answers 203 naming them).
CREATE TABLE vehicles (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  label TEXT NOT NULL,
  tracker_id INTEGER REFERENCES trackers(id)
);
CREATE TABLE rules (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  label TEXT NOT NULL
);
CREATE TABLE rule_trackers (
  rule_id INTEGER NOT NULL REFERENCES rules(id) ON DELETE CASCADE,
  tracker_id INTEGER NOT NULL REFERENCES trackers(id),
  PRIMARY KEY (rule_id, tracker_id)
);

-- Monotonic change counters that caches and the gateway's registry watch (see migration 002).
CREATE TABLE versions (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);

INSERT INTO dealers (id, label) VALUES (1, 'default');
INSERT INTO tariffs (id, name) VALUES (1, 'default');
