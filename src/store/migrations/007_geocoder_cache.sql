-- Geocoder results cache (docs/geocoder.md): answers of the remote providers (Nominatim, Photon),
-- keyed by provider, the normalized request (rounded coordinates or normalized query text) and
-- the language. Not geo-relevant entity data: no trigger bumps the 'geo' version here.
CREATE TABLE geocoder_cache (
  provider TEXT NOT NULL,               -- nominatim, photon
  request TEXT NOT NULL,                -- 'r:<lat>,<lng>' (4 decimals) or 's:<normalized q>|<bounds>'
  lang TEXT NOT NULL,                   -- ISO 639-1, '' when none
  value TEXT NOT NULL,                  -- JSON: a GeoResult, null, or an array of GeoResult
  created_at INTEGER NOT NULL,          -- ms UTC
  PRIMARY KEY (provider, request, lang)
);
CREATE INDEX geocoder_cache_created ON geocoder_cache(created_at);
