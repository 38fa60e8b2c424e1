/* lifecycle.c - see lifecycle.h
 *
 * Each entry point checks its change against the table first, before it
 * touches anything (an allocation, an attempt record, the comment), so a
 * refused change leaves the job exactly as it was.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/util.h"
#include "scheduler/job_ckpt.h"
#include "scheduler/lifecycle.h"
#include "scheduler/nodes.h"

/* Tell the subscribers of ev: those inside the transaction (in_txn 1,
 * the first failure fails: -1), or those after it (in_txn 0, whose
 * failures are theirs). */
static int lifecycle_tell_some (struct server *srv, struct job *job,
                                const struct lifecycle_event *ev, int in_txn)
{
    for (int i = 0; i < srv->nlc_subs; i++) {
        const struct lifecycle_sub *s = srv->lc_subs[i].sub;
        if (s->in_txn == in_txn && s->fn (srv, job, ev, srv->lc_subs[i].arg) < 0
            && in_txn)
            return -1;
    }
    return 0;
}

/* Every subscriber of ev, those inside the transaction first.  0 or -1. */
static int lifecycle_tell (struct server *srv, struct job *job,
                           const struct lifecycle_event *ev)
{
    if (lifecycle_tell_some (srv, job, ev, 1) < 0)
        return -1;
    return lifecycle_tell_some (srv, job, ev, 0);
}

/* job moved from old to its present state: write it and its event, and
 * tell those who account for it (the accounting log's record goes into
 * the same transaction). */
static int lifecycle_record (struct server *srv, struct job *job, char old,
                             enum job_event ev, const char *actor, const char *detail)
{
    struct lifecycle_event e = {
        .point = LC_RECORDED, .old = old, .event = ev, .actor = actor
    };

    if (jobs_write (srv->jobs, job) < 0
        || db_event_add_state (srv->db, job->rec.seq, job->rec.mtime,
                               job_event_name (ev), actor, detail, old, job->rec.state)
               < 0
        || lifecycle_tell (srv, job, &e) < 0)
        return -1;
    if (job->parent)
        lifecycle_array_update (srv, job->parent);
    return 0;
}

int lifecycle_change_at (struct server *srv, struct job *job, char to,
                         enum job_event ev, const char *actor, const char *detail,
                         const char *caller)
{
    char old = job->rec.state;
    struct lifecycle_event e = {
        .point = LC_CHANGED, .old = old, .event = ev, .actor = actor
    };

    if (job_state_set (job, to, ev, actor, caller) < 0)
        return -1;
    jobs_refile (srv->jobs, job, old);
    (void)lifecycle_tell (srv, job, &e);
    return lifecycle_record (srv, job, old, ev, actor, detail);
}

char lifecycle_ready_state (const struct job *job)
{
    return !job->is_array && job->spec.execution_time > util_wall_secs () ? 'W' : 'Q';
}

int lifecycle_submit (struct server *srv, struct job *job)
{
    /* Any hold (u, o, or s for dependencies) holds it from the start. */
    char to = job->rec.hold_types[0] && strcmp (job->rec.hold_types, "n") != 0
                  ? 'H'
                  : lifecycle_ready_state (job);
    struct lifecycle_event e = { .point = LC_RECORDED,
                                 .old = JOB_STATE_NEW,
                                 .event = JOB_EV_SUBMITTED,
                                 .actor = job->rec.owner };

    if (job_state_set (job, to, JOB_EV_SUBMITTED, job->rec.owner, __func__) < 0)
        return -1;
    if (jobs_insert (srv->jobs, job) < 0
        || db_event_add_state (srv->db, job->rec.seq, job->rec.ctime,
                               job_event_name (JOB_EV_SUBMITTED), job->rec.owner,
                               job->rec.queue, JOB_STATE_NEW, to)
               < 0
        || lifecycle_tell_some (srv, job, &e, 1) < 0 || jobs_add (srv->jobs, job) < 0) {
        job->rec.state = JOB_STATE_NEW; /* not submitted after all */
        return -1;
    }
    (void)lifecycle_tell_some (srv, job, &e, 0);
    return 0;
}

void lifecycle_array_update (struct server *srv, struct job *array)
{
    int failed = array_failed (array->arr);

    if (array->rec.state == 'F' || !array_done (array->arr))
        return;
    if (job_state_check (array, 'F', JOB_EV_FINISHED, "scheduler", __func__) < 0)
        return;
    /* PBS: an array's exit status is 0 when every subjob's was. */
    array->rec.has_exit = 1;
    array->rec.exit_status = failed;
    array->rec.etime = util_wall_secs ();
    job_set_comment (array, "Job Array Finished");
    if (lifecycle_change (srv, array, 'F', JOB_EV_FINISHED, "scheduler", NULL) < 0)
        log_error ("job %s: record end of array", array->id);
}

int lifecycle_start_at (struct server *srv, struct job *job, struct alloc *alloc,
                        const char *caller)
{
    char when[64];
    json_t *o;
    char *text;

    if (job_state_check (job, 'R', JOB_EV_STARTED, "scheduler", caller) < 0)
        return -1;
    o = alloc_to_json (alloc);
    text = o ? json_dumps (o, JSON_COMPACT) : NULL;
    json_decref (o);
    if (!text)
        return -1;
    free (job->rec.alloc);
    job->rec.alloc = text;
    free (job->rec.exec_host);
    free (job->rec.exec_vnode);
    alloc_format_exec (alloc, &job->rec.exec_host, &job->rec.exec_vnode);
    job->alloc = alloc;
    alloc_apply (alloc, job->rec.seq, 1);
    jobs_running_add (srv->jobs, job);
    if (job->parent)
        job->parent->arr->running++;
    job->est_start = 0;
    job->restart_first = 0;
    job->rec.run_count++;
    job->rec.stime = util_wall_secs ();
    job->rec.has_exit = 0;
    job->rec.session_id = 0;
    free (job->rec.resources_used);
    job->rec.resources_used = NULL;
    job->used_cput = job->used_mem = -1; /* until its node reports */
    util_format_ctime (job->rec.stime, when, sizeof (when));
    job_set_comment (job, "Job run at %s on %s", when, job->rec.exec_vnode);
    /* A subjob's first start may be the first its row is written. */
    if (job->parent && db_job_update (srv->db, &job->rec) < 0)
        return -1;
    if (db_attempt_start (srv->db, job->rec.seq, job->rec.run_count,
                          alloc->slot[0].node_name, job->rec.exec_host, job->rec.stime)
        < 0)
        return -1;
    job->launch_pending = 1;
    job->kill_sent = 0;
    (void)lifecycle_tell (srv, job,
                          &(struct lifecycle_event){ .point = LC_ATTEMPT_STARTED });
    return lifecycle_change_at (srv, job, 'R', JOB_EV_STARTED, "scheduler",
                                job->rec.exec_host, caller);
}

static void lifecycle_release_alloc (struct server *srv, struct job *job)
{
    if (job->alloc) {
        jobs_running_remove (srv->jobs, job);
        if (job->parent)
            job->parent->arr->running--;
        /* A suspended job's resources were released when it stopped. */
        if (!job->ck || !job->ck->released)
            alloc_apply (job->alloc, job->rec.seq, -1);
        if (job->ck)
            job->ck->released = 0;
        free (job->alloc);
        job->alloc = NULL;
    }
    free (job->rec.alloc);
    job->rec.alloc = NULL;
    /* exec_binding is the running attempt's, kept in memory only: gone
     * with the allocation, so what qstat -f shows of an ended job is the
     * same before and after a restart. */
    free (job->binding);
    job->binding = NULL;
    free (job->gpu_live);
    job->gpu_live = NULL;
    server_request_pass (srv);
}

static int lifecycle_store_usage (struct job *job, int64_t cput, int64_t walltime,
                                  int64_t maxrss)
{
    char cpu[32], wall[32], mem[32];
    json_t *o;

    resource_format_walltime (cput, cpu, sizeof (cpu));
    resource_format_walltime (walltime, wall, sizeof (wall));
    resource_format_size (maxrss, mem, sizeof (mem));
    o = json_pack ("{s:s s:s s:s s:i}", "cput", cpu, "walltime", wall, "mem", mem,
                   "ncpus", resource_total_ncpus (&job->spec.res));
    if (!o)
        return -1;
    if (job->has_gpu_used)
        gpu_usage_attrs (o, &job->gpu_used);
    free (job->rec.resources_used);
    job->rec.resources_used = json_dumps (o, JSON_COMPACT);
    json_decref (o);
    return job->rec.resources_used ? 0 : -1;
}

int lifecycle_end_at (struct server *srv, struct job *job, int exit_status,
                      const char *reason, int64_t cput, int64_t walltime,
                      int64_t maxrss, const char *actor, const char *caller)
{
    static const struct lifecycle_event ended = { .point = LC_ATTEMPT_ENDED };
    struct lifecycle_event usage = { .point = LC_USAGE };
    char detail[128], why[512];

    if (job_state_check (job, 'F', JOB_EV_FINISHED, actor, caller) < 0)
        return -1;
    /* reason may be the job's own comment, which is replaced below. */
    if (reason) {
        snprintf (why, sizeof (why), "%s", reason);
        reason = why;
    }
    if (lifecycle_tell (srv, job, &ended) < 0)
        return -1;
    lifecycle_release_alloc (srv, job);
    job->rec.has_exit = 1;
    job->rec.exit_status = exit_status;
    job->rec.etime = util_wall_secs ();
    job->launch_pending = 0;
    usage.walltime = walltime;
    if (lifecycle_store_usage (job, cput, walltime, maxrss) < 0
        || lifecycle_tell (srv, job, &usage) < 0)
        return -1;
    if (reason)
        job_set_comment (job, "%s", reason);
    else
        job_set_comment (job, "Job run at %s and finished",
                         job->rec.exec_host ? job->rec.exec_host : "?");
    if (db_attempt_end (srv->db, job->rec.seq, job->rec.run_count, job->rec.etime,
                        exit_status, reason, cput, walltime, maxrss)
        < 0)
        return -1;
    if (job->has_gpu_used
        && db_attempt_gpu (srv->db, job->rec.seq, job->rec.run_count, &job->gpu_used)
               < 0)
        return -1;
    job->has_gpu_used = 0; /* this attempt's, not the next one's */
    if (lifecycle_tell (srv, job, &(struct lifecycle_event){ .point = LC_FINISHED })
        < 0)
        return -1;
    snprintf (detail, sizeof (detail), "Exit_status=%d", exit_status);
    log_msg (LOG_DEBUG, "job %s (%s) finished: exit status %d", job->id, job->rec.owner,
             exit_status);
    return lifecycle_change_at (srv, job, 'F', JOB_EV_FINISHED, actor, detail, caller);
}

int lifecycle_node_lost_at (struct server *srv, struct job *job, const char *why,
                            const char *caller)
{
    int64_t now = util_wall_secs ();

    if (!job->spec.rerunnable || job->rec.state == 'E') {
        char reason[256];
        snprintf (reason, sizeof (reason), "Job failed: %s", why);
        return lifecycle_end_at (srv, job, JOB_EXEC_NODE_LOST, reason, 0,
                                 now - job->rec.stime, 0, "scheduler", caller);
    }
    return lifecycle_requeue_at (srv, job, why, "scheduler", caller);
}

int lifecycle_requeue_at (struct server *srv, struct job *job, const char *why,
                          const char *actor, const char *caller)
{
    static const struct lifecycle_event ended = { .point = LC_ATTEMPT_ENDED };
    int64_t now = util_wall_secs ();

    if (job_state_check (job, 'Q', JOB_EV_REQUEUED, actor, caller) < 0)
        return -1;
    if (lifecycle_tell (srv, job, &ended) < 0)
        return -1;
    lifecycle_release_alloc (srv, job);
    job->launch_pending = 0;
    if (db_attempt_end (srv->db, job->rec.seq, job->rec.run_count, now, JOB_EXEC_RERUN,
                        why, 0, now - job->rec.stime, 0)
        < 0)
        return -1;
    job_set_comment (job, "Requeued: %s", why);
    free (job->rec.exec_host);
    free (job->rec.exec_vnode);
    job->rec.exec_host = job->rec.exec_vnode = NULL;
    log_msg (LOG_WARNING, "job %s (%s) requeued: %s", job->id, job->rec.owner, why);
    return lifecycle_change_at (srv, job, 'Q', JOB_EV_REQUEUED, actor, why, caller);
}

int lifecycle_requeue_from_checkpoint_at (struct server *srv, struct job *job,
                                          const char *why, const char *actor,
                                          const char *caller)
{
    char detail[512];
    const struct job_ckpt *jc = job->ck;

    if (job_state_check (job, 'Q', JOB_EV_REQUEUED, actor, caller) < 0)
        return -1;
    if (jc && jc->count > 0)
        snprintf (detail, sizeof (detail),
                  "%s; restarts from checkpoint generation %lld", why,
                  (long long)jc->last_gen);
    else
        snprintf (detail, sizeof (detail),
                  "%s; no checkpoint reported: restarts from "
                  "what its folder holds",
                  why);
    /* The running copy's result is of no interest: it must go at once. */
    if (job->alloc)
        job_signal_nodes (job, "KILL", "stale");
    return lifecycle_requeue_at (srv, job, detail, actor, caller);
}

int lifecycle_suspend_at (struct server *srv, struct job *job, const char *why,
                          const char *actor, const char *caller)
{
    if (job_state_check (job, 'S', JOB_EV_SUSPENDED, actor, caller) < 0)
        return -1;
    if (!job->alloc) {
        errno = EINVAL;
        return -1;
    }
    job_signal_nodes (job, "STOP", "suspend");
    /* Released for others; kept (job->alloc, rec.alloc) to resume on. */
    jobs_running_remove (srv->jobs, job);
    alloc_apply (job->alloc, job->rec.seq, -1);
    ckpt_job_state (job)->suspend_since_ms = util_now_ms ();
    job->ck->released = 1;
    job_set_comment (job, "Suspended: %s", why);
    log_msg (LOG_INFO, "job %s (%s) suspended: %s", job->id, job->rec.owner, why);
    server_request_pass (srv);
    return lifecycle_change_at (srv, job, 'S', JOB_EV_SUSPENDED, actor, why, caller);
}

/* The cores and memory the slots of a on node n take. */
static void alloc_on_node (const struct alloc *a, const struct node *n, int *ncpus,
                           int64_t *mem, int *excl)
{
    *ncpus = 0;
    *mem = 0;
    *excl = 0;
    for (int i = 0; i < a->n; i++)
        if (a->slot[i].node == n) {
            *ncpus += a->slot[i].ncpus;
            *mem += a->slot[i].mem;
            *excl |= a->slot[i].excl;
        }
}

static int slot_gpus_free (const struct node *n, const struct alloc_slot *s)
{
    for (int g = 0; g < s->ngpus; g++)
        if (s->gpus[g] < 0 || s->gpus[g] >= n->ngpus || n->gpu[s->gpus[g]].used_by)
            return 0;
    if (s->nmig
        && (s->mig_gpu < 0 || s->mig_gpu >= n->ngpus || s->mig_inst < 0
            || s->mig_inst >= n->gpu[s->mig_gpu].nmig
            || n->gpu[s->mig_gpu].mig[s->mig_inst].used_by))
        return 0;
    return 1;
}

int lifecycle_resume_fits (const struct job *job)
{
    const struct alloc *a = job->alloc;

    if (!a)
        return 0;
    for (int i = 0; i < a->n; i++) {
        const struct node *n = a->slot[i].node;
        int ncpus, excl;
        int64_t mem;
        if (!n || n->state != NODE_UP || !slot_gpus_free (n, &a->slot[i]))
            return 0;
        alloc_on_node (a, n, &ncpus, &mem, &excl);
        if (n->ncpus_used + ncpus > n->ncpus
            || (n->mem > 0 && n->mem_used + mem > n->mem) || n->excl_by
            || (excl && n->njobs > 0))
            return 0;
    }
    return 1;
}

int lifecycle_resume_at (struct server *srv, struct job *job, const char *actor,
                         const char *caller)
{
    struct job_ckpt *jc;

    if (job_state_check (job, 'R', JOB_EV_RESUMED, actor, caller) < 0)
        return -1;
    if (!lifecycle_resume_fits (job)) {
        errno = EBUSY;
        return -1;
    }
    alloc_apply (job->alloc, job->rec.seq, 1);
    jobs_running_add (srv->jobs, job);
    jc = ckpt_job_state (job);
    jc->released = 0;
    jc->auto_resume = 0;
    if (jc->suspend_since_ms) {
        jc->suspended_ms += util_now_ms () - jc->suspend_since_ms;
        jc->suspend_since_ms = 0;
    }
    job_signal_nodes (job, "CONT", "resume");
    job_set_comment (job, "Resumed on %s",
                     job->rec.exec_vnode ? job->rec.exec_vnode : "?");
    log_msg (LOG_INFO, "job %s (%s) resumed", job->id, job->rec.owner);
    return lifecycle_change_at (srv, job, 'R', JOB_EV_RESUMED, actor, NULL, caller);
}
