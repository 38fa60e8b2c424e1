/* rtask.h - one process the task manager starts in a job on this host
 * (pbsdsh, pbs_tmrsh, an MPI launcher's daemon): forked as the job's
 * owner in a session of its own, its standard streams on pipes that the
 * loop reads and writes, never blocking the worker.
 *
 * Output is read while less than TM_WINDOW bytes of it wait for the
 * caller's acknowledgement (rtask_ack); input is written as the pipe takes
 * it and acknowledged as written.  The exit is reported once the process
 * has been reaped and both output pipes are at EOF (or a moment after the
 * exit, for a process that left a child holding them), so the caller has
 * every byte before the status.
 */
#ifndef HPCQ_WORKER_RTASK_H
#define HPCQ_WORKER_RTASK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "common/error.h"
#include "common/loop.h"
#include "worker/cgroup.h"
#include "worker/privsep.h"

struct rtask;

struct rtask_ops {
    /* len bytes of stream fd (1 or 2); buf is borrowed. */
    void (*output) (struct rtask *rt, int fd, const char *buf, size_t len, void *arg);
    /* n bytes of input reached the process (for the caller's window). */
    void (*input_ack) (struct rtask *rt, size_t n, void *arg);
    /* Gone: its TM status (tm.h), CPU seconds and peak memory in bytes.
     * The rtask stays until rtask_destroy. */
    void (*exited) (struct rtask *rt, int status, int64_t cput, int64_t mem, void *arg);
};

struct rtask_spec {
    char **argv;                     /* program and arguments (borrowed) */
    int shell;                       /* run argv joined by spaces with the owner's
                                 * shell -c, as rsh and ssh do */
    char **envp;                     /* its whole environment (borrowed) */
    const char *cwd;                 /* NULL or unreachable: the owner's home */
    const struct privsep_cred *cred; /* the job's owner (privsep_drop) */
    const struct cgroup_job *cg;     /* the job's cgroup here, or NULL */
    int want_stdin;                  /* else /dev/null */
};

/* Fork the process.  NULL with err if it could not even be forked; a
 * program that cannot be executed exits 127 with the reason on its
 * standard error, as a shell's would. */
struct rtask *rtask_start (struct loop *loop, const struct rtask_spec *spec,
                           const struct rtask_ops *ops, void *arg,
                           struct hpcq_error *err);

/* Kill the process group if it still runs (SIGKILL), close the pipes and
 * free.  A process not reaped yet is reaped later through rtask_reaped()
 * of no rtask: the caller keeps its pid in mind only if it wants. */
void rtask_destroy (struct rtask *rt);

pid_t rtask_pid (const struct rtask *rt);

/* Queue input; 0, or -1 with errno (EPIPE: the process closed its end;
 * ENOBUFS: more than TM_WINDOW unwritten, the caller broke the window). */
int rtask_write (struct rtask *rt, const char *buf, size_t len);
/* No more input: the pipe closes once what is queued is written. */
void rtask_close_input (struct rtask *rt);

/* The caller consumed n bytes of output: read more if the window allows. */
void rtask_ack (struct rtask *rt, size_t n);

/* A signal to the process's group (its session). */
void rtask_signal (struct rtask *rt, int signo);

/* SIGCHLD: 1 if pid is this rtask's process (now reaped), else 0. */
int rtask_reaped (struct rtask *rt, pid_t pid, int wstatus, const struct rusage *ru);

/* 1 once the exit has been reported. */
int rtask_done (const struct rtask *rt);

#endif
