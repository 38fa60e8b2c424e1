-- Replicas (scheduler/replica.c): every table has a primary key, since
-- SQLite's session extension, which turns a group commit into a Raft log
-- entry, ignores tables without one; and the index and term of the last
-- log entry the file holds, written in the same transaction as the
-- entry's own changes, so a replica knows where it stands after a crash.
CREATE TABLE preemptions_new (
    id        INTEGER PRIMARY KEY,
    job_seq   INTEGER NOT NULL REFERENCES jobs (seq),
    attempt   INTEGER NOT NULL,
    time      INTEGER NOT NULL,
    method    TEXT NOT NULL CHECK (method IN ('S', 'C', 'R', 'D')),
    preemptor INTEGER,
    reason    TEXT NOT NULL
);
INSERT INTO preemptions_new (id, job_seq, attempt, time, method, preemptor, reason)
    SELECT rowid, job_seq, attempt, time, method, preemptor, reason FROM preemptions;
DROP TABLE preemptions;
ALTER TABLE preemptions_new RENAME TO preemptions;
CREATE INDEX preemptions_by_job ON preemptions (job_seq);

CREATE TABLE replica_state (
    k             INTEGER PRIMARY KEY CHECK (k = 0),
    applied_index INTEGER NOT NULL,
    applied_term  INTEGER NOT NULL
);
INSERT INTO replica_state (k, applied_index, applied_term) VALUES (0, 0, 0);
