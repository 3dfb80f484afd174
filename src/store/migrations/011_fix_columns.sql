-- The attributes the telemetry core reads of every fix, as columns: reading them out of the JSON
-- attributes cost more than the rest of the processing. flags gains bit 3 (ignition reported),
-- bit 4 (ignition on) and bit 5 (the record carries an alarm).
ALTER TABLE fixes ADD COLUMN odometer REAL;   -- device odometer, metres
ALTER TABLE fixes ADD COLUMN hours REAL;      -- device engine hours, ms
ALTER TABLE fixes ADD COLUMN fuel_used REAL;  -- device fuel consumed, litres
