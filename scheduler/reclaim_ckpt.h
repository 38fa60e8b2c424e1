/* reclaim_ckpt.h - what a spot reclaim asks of the checkpoint module, in
 * one small place (reclaim_ckpt.c).
 *
 * The reclaim flow (reclaim.c) needs four things: whether a job takes a
 * checkpoint signal where it runs, a checkpoint asked of it with a
 * deadline (reclaim_checkpointed() is called once it is reported or the
 * deadline passes), a requeue that restarts it from that checkpoint, and
 * the node class's interruption history.  scheduler/ckpt.h provides them
 * (ckpt_job_checkpoints, ckpt_request, lifecycle_requeue_from_checkpoint,
 * nodeclass_interrupted); reclaim_ckpt.c says which build it is.
 */
#ifndef HPCQ_SCHEDULER_RECLAIM_CKPT_H
#define HPCQ_SCHEDULER_RECLAIM_CKPT_H

#include <stdint.h>

#include "scheduler/server.h"

struct job;
struct node;

/* 1 if job takes checkpoint signals where it runs. */
int rck_job_checkpoints (struct server *srv, const struct job *job);

/* Ask job for a checkpoint now (reason "reclaim"), given up on at
 * deadline_ms (util_now_ms clock): reclaim_checkpointed (srv->reclaim,
 * job, reported) follows once, unless the attempt ends otherwise first.
 * 0, or -1 (the job cannot be asked: it is requeued at the deadline). */
int rck_request (struct server *srv, struct job *job, int64_t deadline_ms);

/* Requeue a running (or suspended) job for a new attempt that restarts
 * from its checkpoint, its running copy killed: "requeued" with why.
 * 0 or -1. */
int rck_requeue (struct server *srv, struct job *job, const char *why);

/* Node n was reclaimed (detail for people): its class's history. */
void rck_interrupted (struct server *srv, const struct node *n, const char *detail);

#endif
