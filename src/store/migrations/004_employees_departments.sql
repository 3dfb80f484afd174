-- Employees and departments (issue 4; docs/employees.md). A location is stored as lat/lng/address
-- columns (lat NULL = no location); radius only for departments.

CREATE TABLE departments (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  label TEXT NOT NULL,
  lat REAL,
  lng REAL,
  address TEXT NOT NULL DEFAULT '',
  radius INTEGER
);
CREATE INDEX departments_user ON departments(user_id);

CREATE TABLE employees (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  tracker_id INTEGER REFERENCES trackers(id),
  first_name TEXT NOT NULL,
  middle_name TEXT NOT NULL DEFAULT '',
  last_name TEXT NOT NULL DEFAULT '',
  email TEXT NOT NULL DEFAULT '',
  phone TEXT NOT NULL DEFAULT '',
  driver_license_number TEXT NOT NULL DEFAULT '',
  driver_license_cats TEXT NOT NULL DEFAULT '',
  driver_license_valid_till TEXT,                 -- yyyy-MM-dd
  hardware_key TEXT,
  icon_id INTEGER,
  avatar_file_name TEXT,
  department_id INTEGER REFERENCES departments(id) ON DELETE SET NULL,
  lat REAL,
  lng REAL,
  address TEXT NOT NULL DEFAULT '',
  personnel_number TEXT NOT NULL DEFAULT '',
  fuel_consumption REAL NOT NULL DEFAULT 0,      -- liters per 100 km
  fuel_cost REAL NOT NULL DEFAULT 0              -- cost of a liter
);
CREATE INDEX employees_user ON employees(user_id);
-- A tracker is bound to at most one employee.
CREATE UNIQUE INDEX employees_tracker ON employees(tracker_id) WHERE tracker_id IS NOT NULL;
CREATE INDEX employees_department ON employees(department_id);

-- tracker/list shows group_id (the department of the tracker's employee): bump 'trackers' when
-- a binding or an employee's department changes.
CREATE TRIGGER employees_trackers_ins AFTER INSERT ON employees WHEN NEW.tracker_id IS NOT NULL
BEGIN UPDATE versions SET value = value + 1 WHERE name = 'trackers'; END;
CREATE TRIGGER employees_trackers_upd AFTER UPDATE OF tracker_id, department_id ON employees
WHEN NEW.tracker_id IS NOT OLD.tracker_id OR (NEW.tracker_id IS NOT NULL AND NEW.department_id IS NOT OLD.department_id)
BEGIN UPDATE versions SET value = value + 1 WHERE name = 'trackers'; END;
CREATE TRIGGER employees_trackers_del AFTER DELETE ON employees WHEN OLD.tracker_id IS NOT NULL
BEGIN UPDATE versions SET value = value + 1 WHERE name = 'trackers'; END;
CREATE TRIGGER departments_trackers_del AFTER DELETE ON departments
BEGIN UPDATE versions SET value = value + 1 WHERE name = 'trackers'; END;

-- A tracker that is deleted (clone deleted, registration corrupted) leaves its employee.
CREATE TRIGGER trackers_deleted_unbind AFTER UPDATE OF deleted ON trackers WHEN NEW.deleted = 1
BEGIN UPDATE employees SET tracker_id = NULL WHERE tracker_id = NEW.id; END;

-- The version hook of the geofence index (migration 003): located departments and employees.
CREATE TRIGGER departments_geo_ins AFTER INSERT ON departments WHEN NEW.lat IS NOT NULL
BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
CREATE TRIGGER departments_geo_upd AFTER UPDATE OF lat, lng, radius ON departments
WHEN NEW.lat IS NOT OLD.lat OR NEW.lng IS NOT OLD.lng OR NEW.radius IS NOT OLD.radius
BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
CREATE TRIGGER departments_geo_del AFTER DELETE ON departments WHEN OLD.lat IS NOT NULL
BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
CREATE TRIGGER employees_geo_ins AFTER INSERT ON employees WHEN NEW.lat IS NOT NULL
BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
CREATE TRIGGER employees_geo_upd AFTER UPDATE OF lat, lng ON employees
WHEN NEW.lat IS NOT OLD.lat OR NEW.lng IS NOT OLD.lng
BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
CREATE TRIGGER employees_geo_del AFTER DELETE ON employees WHEN OLD.lat IS NOT NULL
BEGIN UPDATE versions SET value = value + 1 WHERE name = 'geo'; END;
