/* tmclient.h - pbsdsh's and pbs_tmrsh's side of the task manager
 * (common/tm.h): a process started on one of the job's hosts through the
 * worker of this host, its output written here, its exit status back.
 * Like PBS's Libtm (tm_init, tm_spawn, tm_obit, tm_kill), but each process
 * is a connection of its own on the worker's Unix socket ($HPCQ_TM_SOCKET).
 */
#ifndef HPCQ_CLI_TMCLIENT_H
#define HPCQ_CLI_TMCLIENT_H

#include "common/error.h"
#include "common/loop.h"

struct tmc;

/* The process is over: its TM status (common/tm.h), or -1 if it never
 * started or was lost, with why in error (NULL otherwise). */
typedef void (*tmc_done_f) (struct tmc *t, int status, const char *error, void *arg);
/* The worker accepted the spawn. */
typedef void (*tmc_started_f) (struct tmc *t, void *arg);
/* Some of its output (fd 1 or 2); consumed when this returns. */
typedef void (*tmc_output_f) (struct tmc *t, int fd, const char *buf, size_t len,
                              void *arg);

struct tmc_spawn {
    const char *host; /* where ("" or NULL: this host) */
    int vnode;        /* its line in the node file (PBS_VNODENUM) */
    char **argv;
    int shell;           /* argv joined and run by the owner's shell (rsh) */
    int forward_stdin;   /* our standard input goes to it */
    int write_stdin;     /* its standard input is what tmc_write gives */
    int detach;          /* it lives on when we go (pbsdsh -o) */
    char **env;          /* its environment (NULL: ours) */
    tmc_output_f output; /* where its output goes (NULL: our fd 1 and 2) */
    tmc_started_f taken; /* the process took some of tmc_write's bytes */
};

/* Start s through the worker: the job is $PBS_JOBID.
 * NULL with err if the worker cannot be reached. */
struct tmc *tmc_spawn (struct loop *loop, const struct tmc_spawn *s,
                       tmc_started_f started, tmc_done_f done, void *arg,
                       struct hpcq_error *err);
/* Drop it: a process still running is killed, unless detached. */
void tmc_destroy (struct tmc *t);
/* A signal to its session. */
void tmc_signal (struct tmc *t, int signo);

/* Bytes for its standard input (spawned with write_stdin): queued here,
 * and sent as its window allows. */
void tmc_write (struct tmc *t, const void *buf, size_t len);
/* Bytes given to tmc_write and not yet sent. */
size_t tmc_queued (const struct tmc *t);

#endif
