-- Change counters kept by the database itself, so every connection and process (server,
-- admin command) invalidates in-memory caches correctly: 'accounts' for users, dealers and
-- tariffs; 'trackers' for what tracker/list shows (trackers, their sources, tags).
INSERT INTO versions (name, value) VALUES ('accounts', 1), ('trackers', 1);

CREATE TRIGGER users_ins AFTER INSERT ON users BEGIN UPDATE versions SET value = value + 1 WHERE name = 'accounts'; END;
CREATE TRIGGER users_upd AFTER UPDATE ON users BEGIN UPDATE versions SET value = value + 1 WHERE name = 'accounts'; END;
CREATE TRIGGER users_del AFTER DELETE ON users BEGIN UPDATE versions SET value = value + 1 WHERE name = 'accounts'; END;
CREATE TRIGGER dealers_upd AFTER UPDATE ON dealers BEGIN UPDATE versions SET value = value + 1 WHERE name = 'accounts'; END;
CREATE TRIGGER tariffs_ins AFTER INSERT ON tariffs BEGIN UPDATE versions SET value = value + 1 WHERE name = 'accounts'; END;
CREATE TRIGGER tariffs_upd AFTER UPDATE ON tariffs BEGIN UPDATE versions SET value = value + 1 WHERE name = 'accounts'; END;

CREATE TRIGGER trackers_ins AFTER INSERT ON trackers BEGIN UPDATE versions SET value = value + 1 WHERE name = 'trackers'; END;
CREATE TRIGGER trackers_upd AFTER UPDATE ON trackers BEGIN UPDATE versions SET value = value + 1 WHERE name = 'trackers'; END;
CREATE TRIGGER trackers_del AFTER DELETE ON trackers BEGIN UPDATE versions SET value = value + 1 WHERE name = 'trackers'; END;
CREATE TRIGGER sources_ins AFTER INSERT ON sources BEGIN UPDATE versions SET value = value + 1 WHERE name = 'trackers'; END;
-- Not on first_seen/last_seen: the gateway touches those all the time and tracker/list does not show them.
CREATE TRIGGER sources_upd AFTER UPDATE OF device_id, model, protocol, blocked, tariff_id, phone, has_gsm, bundled_sim, corrupted, creation_date, tariff_end_date ON sources BEGIN UPDATE versions SET value = value + 1 WHERE name = 'trackers'; END;
CREATE TRIGGER tags_upd AFTER UPDATE ON tags BEGIN UPDATE versions SET value = value + 1 WHERE name = 'trackers'; END;
CREATE TRIGGER tags_del AFTER DELETE ON tags BEGIN UPDATE versions SET value = value + 1 WHERE name = 'trackers'; END;
CREATE TRIGGER tracker_tags_ins AFTER INSERT ON tracker_tags BEGIN UPDATE versions SET value = value + 1 WHERE name = 'trackers'; END;
CREATE TRIGGER tracker_tags_upd AFTER UPDATE ON tracker_tags BEGIN UPDATE versions SET value = value + 1 WHERE name = 'trackers'; END;
CREATE TRIGGER tracker_tags_del AFTER DELETE ON tracker_tags BEGIN UPDATE versions SET value = value + 1 WHERE name = 'trackers'; END;
