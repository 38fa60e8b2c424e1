/* srun_io.h - where a job step's output goes, as srun's -o, -e and -l say
 * (srun(1), "IO Redirection"): srun's own stdout and stderr, or files named
 * by a pattern (%j job, %J job.step, %s step, %t task, %n node of the step,
 * %N its name, %u user, %x job name, %A %a array job and index, %% and a
 * width: %3t is 000), one file per task with %t, per node with %n or %N,
 * else one for all; "none" drops it, a number keeps that task's only.
 * A task's output goes out a line at a time (srun's default, so the
 * tasks' lines do not mix), or as it comes with -u; -l puts "TASK: "
 * before each line, the task number padded to the widest.  stderr goes with stdout when -o is given and -e is not.
 */
#ifndef HPCQ_CLI_SRUN_IO_H
#define HPCQ_CLI_SRUN_IO_H

#include <stddef.h>

#include "common/error.h"

struct srun_io;

struct srun_io_names {
    const char *job; /* number */
    int step;
    const char *user;
    const char *job_name;
    const char *array_job; /* SLURM_ARRAY_JOB_ID or NULL */
    const char *array_task;
};

struct srun_io_opts {
    const char *out, *err; /* patterns, NULL: srun's own */
    int label;
    int unbuffered; /* -u: bytes as they come, not whole lines */
    int append;     /* --open-mode=append */
};

/* ntasks tasks, task t on step node task_node[t] named node_name[...].
 * NULL with err (a file that cannot be opened, named). */
struct srun_io *srun_io_create (const struct srun_io_opts *o,
                                const struct srun_io_names *n, int ntasks,
                                const int *task_node, char **node_name,
                                struct hpcq_error *err);
/* Output of task t on stream fd (1 or 2). */
void srun_io_write (struct srun_io *io, int t, int fd, const char *buf, size_t len);
/* Task t is over: what it wrote without a final newline goes out. */
void srun_io_task_end (struct srun_io *io, int t);
void srun_io_destroy (struct srun_io *io);

/* pattern for task t on node nodeid named node; the text into buf. */
void srun_io_expand (const char *pattern, const struct srun_io_names *n, int t,
                     int nodeid, const char *node, char *buf, size_t len);

#endif
