/* tm.h - the worker's task manager: processes started in a running job on
 * request, on this host or on another of the job's hosts (PBS's TM
 * interface, without ssh; the messages are common/tm.h's).
 *
 * Two doors:
 *  - a Unix socket (tm_socket) for the job's own processes: pbsdsh,
 *    pbs_tmrsh, and so Open MPI's mpirun, whose rsh agent is pbs_tmrsh.
 *    The kernel says who calls (SO_PEERCRED): it must be the job's owner
 *    (or root).  The job must run here, as its mother superior (the first
 *    host, where its script runs) or as a sister this worker started
 *    processes for;
 *  - a TCP port (tm_port, 0 = none: hosts of their own only) for the other
 *    workers of the cluster.  A link opens with link.open (two nonces) and
 *    every message either way carries a MUNGE credential of a service uid
 *    bound to the link (common/auth.h, AUTH_TO_TM and AUTH_FROM_TM): a
 *    worker trusts another worker as it trusts the scheduler, as PBS's
 *    moms trust each other (OpenPBS src/resmom/mom_comm.c, IM_JOIN_JOB and
 *    IM_SPAWN_TASK).
 *
 * One connection carries one process (a session): tm.spawn, then its
 * streams, then tm.exit, then the worker closes it.  A request for
 * another host is relayed: this worker dials that host's worker and passes
 * the messages both ways.  A connection that goes takes its process with
 * it (SIGKILL to its session, or to the remote worker's connection), so:
 *  - a job's end (its script's exit, qdel, walltime) closes every session
 *    of the job here, and so kills its processes on every host;
 *  - a worker that dies (kill -9) drops its connections: the other hosts
 *    kill what they ran for it, and the caller hears which host failed.
 * On a sister the processes run as the job's owner in a cgroup of the job
 * (its share of memory), which goes with the job's last process there.
 */
#ifndef HPCQ_WORKER_TM_H
#define HPCQ_WORKER_TM_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "common/error.h"

struct tm;
struct worker;
struct task;
struct launch_req;

/* Reads tm_socket and tm_port and listens.  NULL with err.  A worker with
 * no tm_socket has no task manager: tm_create returns NULL, err empty. */
struct tm *tm_create (struct worker *w, struct hpcq_error *err);
/* Kills every process it started. */
void tm_destroy (struct tm *tm);

/* The Unix socket path for the job's environment (NULL without TM). */
const char *tm_socket_path (const struct tm *tm);

/* A job runs here as mother superior (t holds its owner and cgroup). */
void tm_job_start (struct tm *tm, const struct launch_req *req, struct task *t);
/* It ended: its processes on every host go.  cput and mem get what the
 * ended remote processes used (added). */
void tm_job_end (struct tm *tm, int64_t seq, int attempt, int64_t *cput, int64_t *mem);

/* SIGCHLD: 1 if pid was a process the task manager started. */
int tm_reaped (struct tm *tm, pid_t pid, int wstatus, const struct rusage *ru);

#endif
