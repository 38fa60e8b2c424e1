-- 0004: an administrator takes a node out of service (pbsnodes -o) and puts
-- it back (pbsnodes -r).  Offline survives restarts, with the reason given;
-- jobs already running there finish (the node drains).
ALTER TABLE nodes ADD COLUMN offline INTEGER NOT NULL DEFAULT 0;
ALTER TABLE nodes ADD COLUMN comment TEXT NOT NULL DEFAULT '';
