-- 0003: queues administered with qmgr, and fair-share usage.
-- Resource limits and defaults are kept as PBS resource lists
-- ("walltime=24:00:00,ncpus=8"); '' means none.  max_run and max_run_user
-- 0 mean no cap; node_labels '' means any node.
ALTER TABLE queues ADD COLUMN queue_type TEXT NOT NULL DEFAULT 'execution';
ALTER TABLE queues ADD COLUMN resources_max TEXT NOT NULL DEFAULT '';
ALTER TABLE queues ADD COLUMN resources_default TEXT NOT NULL DEFAULT '';
ALTER TABLE queues ADD COLUMN max_run INTEGER NOT NULL DEFAULT 0;
ALTER TABLE queues ADD COLUMN max_run_user INTEGER NOT NULL DEFAULT 0;
ALTER TABLE queues ADD COLUMN node_labels TEXT NOT NULL DEFAULT '';

-- Each user's fair-share usage (cpu-seconds, GPUs weighted), decayed
-- exponentially: usage is the value at decayed_at; it is brought forward
-- whenever a job of the user ends.
CREATE TABLE fairshare (
    user       TEXT PRIMARY KEY,
    usage      REAL NOT NULL DEFAULT 0,
    decayed_at INTEGER NOT NULL
);
