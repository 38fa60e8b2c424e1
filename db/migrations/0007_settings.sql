-- 0007: attributes an administrator sets with qmgr (PBS Pro's names), for
-- the server (scope '') and for each queue (scope = the queue's name):
-- query_other_jobs, max_queued, max_queued_res.RES.  value is the text
-- qmgr shows ("True", "[u:PBS_GENERIC=10], [o:PBS_ALL=1000]").  A setting
-- here overrides the same key in the scheduler's config file.
CREATE TABLE settings (
    scope TEXT NOT NULL,
    name  TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (scope, name)
);
