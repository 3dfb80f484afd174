-- Map layers (issue 13, docs/map-layers.md): one KML document per layer, owned by a master user.
-- The document is kept as validated UTF-8 text; `bytes` is its size, so lists never read it.
CREATE TABLE map_layers (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  label TEXT NOT NULL,
  kml TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  created INTEGER NOT NULL
);
CREATE INDEX map_layers_user ON map_layers(user_id, id);
