-- Places and zones (issue 4; spec: Place, Zone, Places and Zones calls). Coordinates in degrees
-- (WGS 84), radii in meters. Every change to them bumps the 'geo' counter of versions: the hook
-- the geofence index of the telemetry core watches to rebuild itself (docs/places-zones.md).

CREATE TABLE places (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  label TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  lat REAL NOT NULL,
  lng REAL NOT NULL,
  address TEXT NOT NULL DEFAULT '',
  radius INTEGER NOT NULL,
  external_id TEXT,                     -- at most 32 characters; duplicates allowed (place/upload decides)
  icon_id INTEGER,                      -- 1..255, set only by avatar/assign
  avatar_file_name TEXT
);
CREATE INDEX places_user_label ON places(user_id, label COLLATE NOCASE);
CREATE INDEX places_user_external ON places(user_id, external_id);

CREATE TABLE zones (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  type TEXT NOT NULL CHECK (type IN ('circle', 'polygon', 'sausage')),
  label TEXT NOT NULL,
  address TEXT NOT NULL DEFAULT '',
  color TEXT NOT NULL DEFAULT '27A9E3',
  radius INTEGER,                       -- circle and sausage
  center_lat REAL,                      -- circle only
  center_lng REAL
);
CREATE INDEX zones_user ON zones(user_id, id);

-- Points of polygon and sausage zones, in order (circles have none).
CREATE TABLE zone_points (
  zone_id INTEGER NOT NULL REFERENCES zones(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  lat REAL NOT NULL,
  lng REAL NOT NULL,
  node INTEGER NOT NULL DEFAULT 0,      -- 1 when the point is a route node
  PRIMARY KEY (zone_id, ordinal)
);

-- Rules that watch zones (the rule engine of a later issue fills it); zone/delete answers 203 naming them.
CREATE TABLE rule_zones (
  rule_id INTEGER NOT NULL REFERENCES rules(id) ON DELETE CASCADE,
  zone_id INTEGER NOT NULL REFERENCES zones(id),
  PRIMARY KEY (rule_id, zone_id)
);
CREATE INDEX rule_zones_zone ON rule_zones(zone_id);

CREATE TRIGGER places_geo_ins AFTER INSERT ON places BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
CREATE TRIGGER places_geo_upd AFTER UPDATE ON places BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
CREATE TRIGGER places_geo_del AFTER DELETE ON places BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
CREATE TRIGGER zones_geo_ins AFTER INSERT ON zones BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
CREATE TRIGGER zones_geo_upd AFTER UPDATE ON zones BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
CREATE TRIGGER zones_geo_del AFTER DELETE ON zones BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
CREATE TRIGGER zone_points_geo_ins AFTER INSERT ON zone_points BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
CREATE TRIGGER zone_points_geo_upd AFTER UPDATE ON zone_points BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
CREATE TRIGGER zone_points_geo_del AFTER DELETE ON zone_points BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
