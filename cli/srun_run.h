/* srun_run.h - the running step, as srun's parts share it: cli/srun.c
 * starts tasks one by one through the task manager; cli/srun_pmix.c, for
 * --mpi=pmix, one hpcq-stepd per node, which forks that node's ranks
 * under a PMIx server (worker/stepd.c) and speaks in frames
 * (common/stepframe.h).
 */
#ifndef HPCQ_CLI_SRUN_RUN_H
#define HPCQ_CLI_SRUN_RUN_H

#include <stddef.h>

#include "cli/srun.h"
#include "cli/tmclient.h"
#include "common/loop.h"
#include "common/stepframe.h"

struct task {
    struct step *st;
    int id;
    struct tmc *t;
    int status;  /* TM status, -1: lost or never started */
    int started; /* the worker accepted it */
    int done;
};

/* A node of a --mpi=pmix step: its hpcq-stepd, its frames, its
 * contribution to the fence in progress. */
struct snode {
    struct step *st;
    int k;
    struct tmc *t;
    struct stepframe_reader rd;
    unsigned char *fence;
    size_t fence_len;
    int fenced;
    int done;
};

struct step {
    struct srun_opts *o;
    struct snode *nodes; /* [lay.nnodes], --mpi=pmix only */
    int fences_in;       /* nodes whose contribution is in */
    int abort_status;    /* a rank called MPI_Abort with this (1 if 0) */
    int input_to;        /* the task srun's stdin goes to, -1: none */
    struct loop_watch *in_watch;
    struct loop *loop;
    struct srun_hosts hosts;
    struct srun_layout lay;
    struct srun_io *io;
    struct task *tasks;
    char **node_name; /* [lay.nnodes] */
    char **task_gpus; /* [lay.ntasks] each task's GPUs, or NULL: the job's */
    char jobid[64];
    char nodelist[8192];
    char tpn[1024];
    int running;
    int killing; /* -K: a task failed, the others are being killed */
    int launch_failed;
};

/* Task t's environment: srun's (as --export says) with the step's and the
 * task's Slurm variables; free with srun_env_free. */
char **srun_task_env (struct step *st, int t);
void srun_env_free (char **env);

/* Task t is over with TM status (-1: lost, error says why): reported as
 * Slurm's srun does, and the step ended if -K or a lost task says so. */
void srun_task_finish (struct step *st, int t, int status, const char *error);
/* A task failed (-K, a lost one, MPI_Abort): every task is killed. */
void srun_step_terminate (struct step *st);

/* --mpi=pmix: a stepd on each of the step's nodes.  0, or -1 (said). */
int srun_pmix_start (struct step *st);
/* Every rank killed: each stepd removes its PMIx files, then kills its
 * session (itself and its ranks). */
void srun_pmix_kill (struct step *st);
/* What srun_pmix_start made (nothing if it did not run). */
void srun_pmix_release (struct step *st);

#endif
