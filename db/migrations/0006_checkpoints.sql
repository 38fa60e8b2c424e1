-- 0006: checkpoints the scheduler manages, suspension and preemption, node
-- interruptions (for the Young/Daly interval) and cost (issue 12).

-- A suspended job (preemption's S) is in state 'S'.  SQLite cannot ALTER a
-- CHECK constraint.  Widening it changes no stored row, and SQLite's
-- documentation (lang_altertable.html, "making other kinds of table schema
-- changes") allows such a change through writable_schema; RESET makes this
-- connection read the schema again.
PRAGMA writable_schema = ON;
UPDATE sqlite_master SET sql = replace (sql, '''E'', ''F'')', '''E'', ''F'', ''S'')')
    WHERE type = 'table' AND name = 'jobs';
PRAGMA writable_schema = RESET;

-- Each completed checkpoint a job's worker reported (the table is from
-- 0001): its attempt and node, why it was asked for (NULL: the job's own,
-- unasked), when the signal went (NULL: none) and how long it took, in
-- seconds: from the signal to the report, or the app's own measure for
-- checkpoints nobody asked for (NULL: unknown).  size is bytes, NULL if the
-- app did not say.
ALTER TABLE checkpoints ADD COLUMN attempt INTEGER;
ALTER TABLE checkpoints ADD COLUMN node TEXT;
ALTER TABLE checkpoints ADD COLUMN reason TEXT;
ALTER TABLE checkpoints ADD COLUMN requested_at REAL;
ALTER TABLE checkpoints ADD COLUMN duration REAL;

-- Each preemption of a job: the attempt it hit, the method (S suspend,
-- C checkpoint then requeue, R requeue, D delete), the job that needed the
-- resources and why, in words.
CREATE TABLE preemptions (
    job_seq   INTEGER NOT NULL REFERENCES jobs (seq),
    attempt   INTEGER NOT NULL,
    time      INTEGER NOT NULL,
    method    TEXT NOT NULL CHECK (method IN ('S', 'C', 'R', 'D')),
    preemptor INTEGER,
    reason    TEXT NOT NULL
);
CREATE INDEX preemptions_by_job ON preemptions (job_seq);

-- What an attempt cost: its nodes' price_per_hour times the hours it held
-- them (suspended time not counted), in the share of each node it held;
-- cost_spot is the part of it on spot nodes.  suspended: seconds spent in
-- S.  NULL for attempts before this migration.
ALTER TABLE attempts ADD COLUMN cost REAL;
ALTER TABLE attempts ADD COLUMN cost_spot REAL;
ALTER TABLE attempts ADD COLUMN suspended REAL;

-- The interruptions of nodes, by node class (its class= label, else
-- 'default'): kind 'failure' (it stopped answering) or 'reclaim' (its
-- provider took it back).  With the hours the nodes of a class were up
-- (class_exposure) they give the class's mean time between interruptions.
CREATE TABLE interruptions (
    id     INTEGER PRIMARY KEY,
    time   INTEGER NOT NULL,
    node   TEXT NOT NULL,
    class  TEXT NOT NULL,
    kind   TEXT NOT NULL CHECK (kind IN ('failure', 'reclaim')),
    detail TEXT
);
CREATE INDEX interruptions_by_class ON interruptions (class);
CREATE TABLE class_exposure (
    class        TEXT PRIMARY KEY,
    node_seconds REAL NOT NULL DEFAULT 0
);

-- A job's checkpoint folder once the job has ended: removed (as its owner)
-- after remove_after: at once for exit status 0, checkpoint_keep_failed
-- days later otherwise.  removed_at is set when it is gone.
CREATE TABLE checkpoint_dirs (
    job_seq      INTEGER PRIMARY KEY,
    path         TEXT NOT NULL,
    uid          INTEGER NOT NULL,
    remove_after INTEGER NOT NULL,
    removed_at   INTEGER
);
CREATE INDEX checkpoint_dirs_due ON checkpoint_dirs (removed_at, remove_after);

-- Preemption per queue (qmgr): preempt_order, the methods tried on this
-- queue's jobs in turn ('' = the scheduler's preempt_order, "SCR" by
-- default); preempt_targets, the queues whose jobs this queue's jobs may
-- preempt ("queue=a,queue=b"; 'NONE': none; '' = any of a lower level).
ALTER TABLE queues ADD COLUMN preempt_order TEXT NOT NULL DEFAULT '';
ALTER TABLE queues ADD COLUMN preempt_targets TEXT NOT NULL DEFAULT '';
