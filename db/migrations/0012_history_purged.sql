-- 0012: qdel -x (PBS Pro: purge a finished job's history).  A purged job
-- is no longer loaded into the scheduler's memory, so qstat -x no longer
-- shows it; its row, attempts and events stay for tracejob and
-- hpcq-report, as its accounting records stay in the log.
ALTER TABLE jobs ADD COLUMN purged INTEGER NOT NULL DEFAULT 0;
