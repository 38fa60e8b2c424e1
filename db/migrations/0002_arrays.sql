-- 0002: job arrays.  A subjob is a row of its own (its attempts and events
-- hang off it like any job's), keyed by an internal number; array_parent
-- names the array it belongs to and array_index its index.
ALTER TABLE jobs ADD COLUMN array_parent INTEGER;
ALTER TABLE jobs ADD COLUMN array_index INTEGER;
CREATE INDEX jobs_by_array ON jobs (array_parent);
