/* job.h - a job as the scheduler models it (the model type).
 *
 * Its durable record, its parsed request, its allocation while it runs,
 * and what a scheduling pass works out for it.  The registry that keeps
 * jobs is jobs.h, and only job_state.h changes a job's state.  A model
 * header: it includes nothing of the server or the sockets, and of the
 * database only the record's layout (db/db_job.h, no SQLite), so the
 * policy code and hpcq-sim can use it.
 */
#ifndef HPCQ_SCHEDULER_JOB_H
#define HPCQ_SCHEDULER_JOB_H

#include <stdint.h>
#include <sys/queue.h>

#include "common/gpu.h"
#include "common/jobspec.h"
#include "db/db_job.h"
#include "scheduler/alloc.h"
#include "scheduler/policy/priority.h"

struct job_array;
struct job_ckpt;
struct resv;

/* The lists a scheduling pass reads: the queued jobs, in submission order,
 * and the jobs holding an allocation, newest first. */
TAILQ_HEAD (job_queue, job);
LIST_HEAD (job_list, job);

/* PBS exit codes for jobs that did not end on their own (PBS Pro values). */
#define JOB_EXEC_FAIL1 (-1) /* could not start: no retry */
#define JOB_EXEC_RERUN (-3) /* node failed: requeued */
#define JOB_EXEC_KILL_WALLTIME (-29)
#define JOB_EXEC_NODE_LOST (-11) /* node failed, job not rerunnable */

struct job {
    struct db_job rec;
    struct hpcq_jobspec spec;
    char id[128];        /* "42.server" */
    struct alloc *alloc; /* while R or E */
    /* Where its first host bound it, as that worker's job.started said
     * ("node1:cpus=0-7:mems=0:gpus=0"), NULL when not running; kept in
     * memory only: a restarted scheduler shows it again once the job runs
     * anew. */
    char *binding;
    int launch_pending; /* launch sent, no job.started yet */
    int kill_sent;
    int restart_first; /* requeued by a spot reclaim: it goes before
                                     * every other waiting job (reclaim.h) */
    /* Spot or on-demand (spot_choice.h): the job's reclaims so far (in
     * memory), and the last decision with its expected cost. */
    int spot_reclaims;
    double est_cost;
    char spot_why[200];
    TAILQ_ENTRY (job) q_link; /* in the queued list while 'Q' */
    LIST_ENTRY (job)
    r_link;                  /* in the running list while it holds an
                                     * allocation (le_prev NULL when not) */
    LIST_ENTRY (job) s_link; /* in the suspended list while 'S' */
    int64_t est_start;       /* backfill's reservation for it, 0 if none */
    /* The reason why_pass last gave it (code 0: none, or its comment was
     * set since by job_set_comment): an unchanged reason costs no text
     * (policy/why.h).  Beside est_start, which every pass writes. */
    int64_t why_want, why_avail;
    unsigned char why_code, why_res;
    /* While it runs: what its mother superior last reported (node.usage):
     * CPU seconds and peak memory bytes, -1 unknown.  Memory only; the
     * final figures go to rec.resources_used at the end. */
    int64_t used_cput, used_mem;
    /* ... and its GPUs' figures so far and latest readings, NULL until
     * reported (freed with the allocation). */
    struct gpu_live *gpu_live;
    struct resv *resv;       /* conservative backfill's kept reservation
                                     * (one block, freed with free()), or NULL */
    const char *node_labels; /* its queue's node_labels (borrowed), NULL = any */
    /* Effective priority while queued, computed each pass from its
     * factors (scheduler/policy/priority.h); policy_sort_priority orders by it. */
    double prio;
    struct priority_factors prio_f;

    /* Job arrays.  The array itself is a job that never runs; arr is its
     * record of subjobs (scheduler/array.h).  A subjob is a job of its own
     * only once split out; it shares the array's request (spec is a
     * shallow copy: the array owns it) unless qalter gave it its own. */
    int is_array;
    struct job_array *arr;  /* array: its subjobs */
    struct job *parent;     /* subjob: its array */
    int array_index;        /* subjob: its index */
    int array_pos;          /* subjob: its position in the array */
    unsigned own_spec : 1;  /* subjob: its request is its own */
    unsigned transient : 1; /* subjob: split out for one pass */
    unsigned arr_group : 2; /* subjob: how its array counts it */
    unsigned arr_began : 1;
    unsigned arr_failed : 1;
    /* Turned down by the pass for a reason whose comment is already set
     * (a queue's max_run): why_pass leaves that comment (policy/why.h). */
    unsigned why_kept : 1;

    /* Checkpoints, suspension, preemption and cost (ckpt.h); NULL until
     * the job has any. */
    struct job_ckpt *ck;
    /* What its attempt used of its GPUs, from the job.finished that ends
     * it (has_gpu_used 0: none reported); lifecycle_end stores it. */
    struct gpu_usage gpu_used;
    int has_gpu_used;
};

/* Subjob keys: the database and the workers know a subjob by this number,
 * far above any job number, made of its array's number and its position:
 * 17 bits of position for arrays of up to 131,072 subjobs, 22 above
 * JOB_SUBKEY_BIG for larger ones (a key never changes: an array's size is
 * fixed when it is submitted). */
#define JOB_SUBKEY_BASE (INT64_C (1) << 62)
#define JOB_SUBKEY_BITS 17
#define JOB_SUBKEY(parent_seq, pos) \
    (JOB_SUBKEY_BASE + ((int64_t)(parent_seq) << JOB_SUBKEY_BITS) + (pos))
#define JOB_SUBKEY_BIG (JOB_SUBKEY_BASE + (INT64_C (1) << 61))
#define JOB_SUBKEY_BIG_BITS 22

#endif
