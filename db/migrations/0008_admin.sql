-- 0008: what administrators read (issue 13): the accounting log's outbox,
-- who a job is charged to, what each attempt held, and which nodes a
-- health check took out of service.

-- Accounting records waiting for the log file.  A record is inserted in the
-- transaction that makes the change it reports, appended to
-- STATE_DIR/accounting/YYYYMMDD (the day of its time) once that transaction
-- is committed, and deleted once the file is on disk.  After a crash the
-- rows left here are the records that may or may not have reached the file:
-- the scheduler compares them with the file's end at start and writes only
-- those missing (scheduler/accounting.c), so each is written once.
CREATE TABLE acct_outbox (
    id     INTEGER PRIMARY KEY,
    time   INTEGER NOT NULL,
    record TEXT NOT NULL
);

-- Who a job is charged to: its owner's group at submission and its account
-- (qsub -A); an array's subjobs are charged as their array.
ALTER TABLE jobs ADD COLUMN egroup TEXT;
ALTER TABLE jobs ADD COLUMN account TEXT;

-- What an attempt held, for usage reports: cores and whole GPUs, and its
-- MIG instances as "PROFILE*N[,PROFILE*N...]" (NULL: none).
ALTER TABLE attempts ADD COLUMN ncpus INTEGER;
ALTER TABLE attempts ADD COLUMN ngpus INTEGER;
ALTER TABLE attempts ADD COLUMN mig TEXT;

-- 1: the node is offline because its health check failed (a passing check
-- puts it back); 0: online, or offline by an administrator (stays so).
ALTER TABLE nodes ADD COLUMN health_offline INTEGER NOT NULL DEFAULT 0;

-- A restarted scheduler loads the finished jobs of its history window only.
CREATE INDEX jobs_by_etime ON jobs (etime);
