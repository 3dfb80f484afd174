-- Sessions are looked up on every call: the server keeps them in memory, valid while this counter
-- (bumped when a session is created or destroyed, by any process) stays the same.
INSERT INTO versions (name, value) VALUES ('sessions', 1);
CREATE TRIGGER sessions_ins AFTER INSERT ON sessions BEGIN UPDATE versions SET value = value + 1 WHERE name = 'sessions'; END;
CREATE TRIGGER sessions_del AFTER DELETE ON sessions BEGIN UPDATE versions SET value = value + 1 WHERE name = 'sessions'; END;
