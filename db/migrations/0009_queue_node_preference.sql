-- 0009: which kind of node a queue's jobs take first (qmgr's
-- node_preference): 'spot', 'on_demand', or '' for no preference.  A
-- preference, not a requirement: a job that fits only on the other kind
-- still runs there (-l spot=true|false is the requirement).
ALTER TABLE queues ADD COLUMN node_preference TEXT NOT NULL DEFAULT '';
