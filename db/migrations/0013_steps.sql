-- 0013: job steps (issue 25): each srun inside a job is a step of the
-- attempt it runs in, numbered from 0 in that attempt, as Slurm's
-- JOBID.STEP; squeue -s lists the unfinished ones, sacct all of them.
-- exit_code is srun's (the highest of its tasks, 128 + a signal); NULL
-- with end_time while it runs, or if the job ended under it.
CREATE TABLE steps (
    job_seq    INTEGER NOT NULL,
    attempt    INTEGER NOT NULL,
    step       INTEGER NOT NULL,
    name       TEXT,
    ntasks     INTEGER NOT NULL,
    nnodes     INTEGER NOT NULL,
    nodelist   TEXT,
    start_time INTEGER NOT NULL,
    end_time   INTEGER,
    exit_code  INTEGER,
    PRIMARY KEY (job_seq, attempt, step)
);
