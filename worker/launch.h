/* launch.h - starting a job's script the way PBS does.
 *
 * The script runs in its own session and process group (so the whole
 * tree can be signalled), in the submission directory, with the PBS
 * environment, stdout and stderr in NAME.oNUM / NAME.eNUM (or -o/-e/-j),
 * and as the job's owner when the worker runs as root.
 */
#ifndef HPCQ_WORKER_LAUNCH_H
#define HPCQ_WORKER_LAUNCH_H

#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#include "common/error.h"
#include "common/jobspec.h"
#include "worker/gpu.h"

struct launch_req {
    int64_t seq;                /* the scheduler's key for the job */
    int64_t number;             /* the number users see (an array's, for a subjob) */
    int array_index;            /* subjob index, -1 if not a subjob */
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
    int gpus[GPU_MAX];          /* indices into the worker's GPUs */
    int ngpus;
    int nmig;                   /* 1: the job has MIG instance mig[1] of GPU mig[0] */
    int mig[2];
    char **nodefile;            /* one host per MPI slot */
    int nnodefile;
    int64_t walltime;           /* seconds, -1 = none */
    char stdout_path[4096];     /* resolved by launch_start */
    char stderr_path[4096];
    char sandbox[4096];         /* -W sandbox=PRIVATE: its directory, else "" */
};

/* Decode a job.launch body.  -1 with err (EPROTO). */
int launch_req_decode (json_t *body, struct launch_req *req, struct hpcq_error *err);
void launch_req_release (struct launch_req *req);

struct launch_env {
    const char *spool;          /* worker's spool directory */
    const char *node_name;
    const struct gpu *gpus;
    int ngpus;
    const char *jobdir_root;    /* where sandboxes go; NULL: the owner's home */
};

/* Fork and exec the job.  Returns the child's pid (also its process group
 * and session id), or -1 with err when it could not start (the script
 * could not be written, output files could not be opened, exec failed). */
pid_t launch_start (struct launch_req *req, const struct launch_env *env,
                    struct hpcq_error *err);

/* Remove the spool files of a job (script, nodefile, session record). */
void launch_cleanup (const char *spool, int64_t seq, int attempt);

/* At start: kill the sessions of jobs a previous worker on this spool
 * launched and never saw end (it was killed).  Nobody watches them any
 * more and the scheduler will run them again elsewhere, so they must not
 * run on.  Returns how many were killed. */
int launch_kill_leftovers (const char *spool);

#endif
