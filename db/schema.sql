-- The schema hpcq creates, for administrators who want to read the
-- database with sqlite3.  The authoritative source is db/migrations/*.sql,
-- applied in order at daemon start (PRAGMA user_version counts them).
-- 0001: the initial schema.
-- Jobs keep their whole request as JSON (spec) plus the columns that
-- queries and recovery need.  A job may run several times (requeue after
-- preemption, node failure, spot reclaim): each run is an attempt row.
-- events is the job's history (who did what, when), for tracejob-style
-- views and accounting.

CREATE TABLE server (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE queues (
    name       TEXT PRIMARY KEY,
    priority   INTEGER NOT NULL DEFAULT 0,
    enabled    INTEGER NOT NULL DEFAULT 1,
    started    INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL,
    queue_type        TEXT NOT NULL DEFAULT 'execution',
    resources_max     TEXT NOT NULL DEFAULT '',
    resources_default TEXT NOT NULL DEFAULT '',
    max_run           INTEGER NOT NULL DEFAULT 0,
    max_run_user      INTEGER NOT NULL DEFAULT 0,
    node_labels       TEXT NOT NULL DEFAULT ''
);
INSERT INTO queues (name, created_at) VALUES ('workq', strftime('%s', 'now'));

CREATE TABLE jobs (
    seq            INTEGER PRIMARY KEY,
    uuid           TEXT NOT NULL UNIQUE,
    owner          TEXT NOT NULL,
    uid            INTEGER NOT NULL,
    name           TEXT NOT NULL,
    queue          TEXT NOT NULL REFERENCES queues (name),
    state          TEXT NOT NULL CHECK (state IN ('Q', 'H', 'W', 'R', 'E', 'F')),
    hold_types     TEXT NOT NULL DEFAULT 'n',
    priority       INTEGER NOT NULL DEFAULT 0,
    spec           TEXT NOT NULL,
    ctime          INTEGER NOT NULL,
    mtime          INTEGER NOT NULL,
    stime          INTEGER,
    etime          INTEGER,
    exit_status    INTEGER,
    comment        TEXT,
    run_count      INTEGER NOT NULL DEFAULT 0,
    exec_host      TEXT,
    exec_vnode     TEXT,
    alloc          TEXT,
    session_id     INTEGER,
    resources_used TEXT,
    array_parent   INTEGER,
    array_index    INTEGER
);
CREATE INDEX jobs_by_state ON jobs (state);
CREATE INDEX jobs_by_array ON jobs (array_parent);

CREATE TABLE attempts (
    job_seq     INTEGER NOT NULL REFERENCES jobs (seq),
    attempt     INTEGER NOT NULL,
    node        TEXT NOT NULL,
    exec_host   TEXT,
    start_time  INTEGER NOT NULL,
    end_time    INTEGER,
    exit_status INTEGER,
    reason      TEXT,
    cput        INTEGER,
    walltime    INTEGER,
    maxrss      INTEGER,
    PRIMARY KEY (job_seq, attempt)
);

CREATE TABLE events (
    id      INTEGER PRIMARY KEY,
    job_seq INTEGER,
    time    INTEGER NOT NULL,
    type    TEXT NOT NULL,
    actor   TEXT NOT NULL,
    detail  TEXT
);
CREATE INDEX events_by_job ON events (job_seq);

CREATE TABLE nodes (
    name      TEXT PRIMARY KEY,
    ncpus     INTEGER NOT NULL,
    mem       INTEGER NOT NULL,
    gpus      TEXT NOT NULL DEFAULT '[]',
    labels    TEXT NOT NULL DEFAULT '',
    state     TEXT NOT NULL,
    last_seen INTEGER NOT NULL,
    offline   INTEGER NOT NULL DEFAULT 0,
    comment   TEXT NOT NULL DEFAULT ''
);

CREATE TABLE checkpoints (
    job_seq      INTEGER NOT NULL REFERENCES jobs (seq),
    generation   INTEGER NOT NULL,
    path         TEXT NOT NULL,
    size         INTEGER,
    completed_at INTEGER NOT NULL,
    PRIMARY KEY (job_seq, generation)
);

CREATE TABLE usage (
    user        TEXT PRIMARY KEY,
    cpu_seconds REAL NOT NULL DEFAULT 0,
    gpu_seconds REAL NOT NULL DEFAULT 0,
    updated_at  INTEGER NOT NULL
);

-- Each user's fair-share usage (cpu-seconds, GPUs weighted), decayed
-- exponentially: usage is the value at decayed_at.
CREATE TABLE fairshare (
    user       TEXT PRIMARY KEY,
    usage      REAL NOT NULL DEFAULT 0,
    decayed_at INTEGER NOT NULL
);

-- qmgr's server and queue attributes that have no column of their own
-- (scope '' is the server, else a queue's name): query_other_jobs,
-- max_queued, max_queued_res.RES.  They override the config file's.
CREATE TABLE settings (
    scope TEXT NOT NULL,
    name  TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (scope, name)
);
