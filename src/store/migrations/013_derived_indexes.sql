-- Indexes of the derived tables led by the device: a window's writes touch a few adjacent pages
-- of each index instead of pages all over it (an index led by the geofence put every visit of a
-- round on a page of its own), and the rows a window replaces are found by a range.
DROP INDEX visits_geo;
DROP INDEX visits_source_time;
-- Stays of a device in one geofence (task judging).
CREATE INDEX visits_source_geo ON visits(source_id, kind, geo_id, enter_time);
-- What a window replaces: visits still open or ending after its start.
CREATE INDEX visits_source_exit ON visits(source_id, exit_time);
-- The segments still going on (at most one per stream and device): replaced by every window.
CREATE INDEX tracks_open ON tracks(source_id) WHERE open = 1;
