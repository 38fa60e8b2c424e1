-- 0014 (issue 23, spot round 2).

-- Reclaim notices not yet over (issue 23), so that a restarted
-- scheduler honours them: its jobs checkpoint if there is still time, else
-- are requeued at the deadline, and the node is gone at the deadline.  A
-- row goes when the node comes back after its reclaim (a later boot).
CREATE TABLE reclaim_notices (
    node TEXT PRIMARY KEY,
    deadline INTEGER NOT NULL, -- wall seconds: the provider takes the node
    source TEXT NOT NULL,      -- who said so ("aws terminate", "pbsnodes ...")
    noticed INTEGER NOT NULL,  -- wall seconds: when the notice came
    taken INTEGER NOT NULL DEFAULT 0 -- 1: the provider has taken the node
);

-- Checkpoints the job's app found unusable (it exited with
-- CKPT_EXIT_INVALID, common/ckptreport.h): kept for the record, no longer
-- counted or restarted from.
ALTER TABLE checkpoints ADD COLUMN invalid INTEGER NOT NULL DEFAULT 0;
