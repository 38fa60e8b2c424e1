-- 0005: an event that changed a job's state says from which state to which
-- (PBS letters), so a job's history shows every transition with its cause
-- (actor).  old_state is NULL for the submission; both are NULL for events
-- that are no transition (server events, and events written before this).
ALTER TABLE events ADD COLUMN old_state TEXT;
ALTER TABLE events ADD COLUMN new_state TEXT;
