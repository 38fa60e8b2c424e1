/* launch_msg.h - job.launch, the message that starts a job: its struct and
 * its encoding, shared by the two daemons.
 *
 * The scheduler fills a struct launch_req for a job it started and
 * encodes it (scheduler/sched.c); the worker decodes the body once, at
 * the edge, and launches from the struct (worker/launch.h).  Nothing else
 * reads or writes the message's JSON.
 */
#ifndef HPCQ_COMMON_LAUNCH_MSG_H
#define HPCQ_COMMON_LAUNCH_MSG_H

#include <stdint.h>
#include <jansson.h>

#include "common/error.h"
#include "common/gpu.h"
#include "common/jobspec.h"

struct launch_req {
    int64_t seq;     /* the scheduler's key for the job */
    int64_t number;  /* the number users see (an array's, for a subjob) */
    int array_index; /* subjob index, -1 if not a subjob */
    int attempt;
    char jobid[128];
    char uuid[40];
    char owner[64];
    int64_t uid;
    char queue[64];
    char server[64];
    struct hpcq_jobspec spec;
    int ncpus;
    int64_t mem;
    int gpus[GPU_MAX]; /* indices into the worker's GPUs */
    int ngpus;
    int nmig; /* 1: the job has MIG instance mig[1] of GPU mig[0] */
    int mig[2];
    char **nodefile; /* one host per MPI slot */
    int nnodefile;
    int64_t walltime; /* seconds, -1 = none */
    /* Not in the message: -W sandbox=PRIVATE's directory, set by the
     * worker's launch_start, else "". */
    char sandbox[4096];
    /* The scheduler's "checkpoint" object, where has_ckpt: the job's
     * checkpoint folder ("" = WORKDIR/.hpcq/checkpoints/UUID, set by
     * launch_start), generations to keep (0: the app's default), the
     * checkpoint signal's name, and whether its CPU time is wanted
     * (-c c=MIN). */
    int has_ckpt;
    char ckpt_dir[4096];
    int ckpt_keep;
    char ckpt_signal[16];
    int ckpt_cpu;
};

/* The body of a job.launch for req (new reference), or NULL if out of
 * memory.  Reads req only: a caller may fill spec and nodefile with
 * borrowed copies and never release req. */
json_t *launch_msg_encode (const struct launch_req *req);

/* Decode a job.launch body into req, which then owns its spec and node
 * file (launch_msg_release, also after a failure).  -1 with err
 * (EPROTO). */
int launch_msg_decode (json_t *body, struct launch_req *req, struct hpcq_error *err);
void launch_msg_release (struct launch_req *req);

#endif
