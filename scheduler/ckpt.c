/* ckpt.c - see ckpt.h
 *
 * One timer drives everything that waits: every CKPT_TICK_MS it gives up
 * on requests whose deadline passed, and every second it walks the
 * running jobs for those whose cadence says a checkpoint is due.  Requests
 * under way are few (a job has at most one), so they are kept in a small
 * array rather than found by walking every job.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/ckptreport.h"
#include "common/launch_msg.h"
#include "common/log.h"
#include "common/resource.h"
#include "common/util.h"
#include "db/db_ckpt.h"
#include "db/db_job.h"
#include "scheduler/policy/cadence.h"
#include "scheduler/ckpt.h"
#include "scheduler/jobs.h"
#include "scheduler/lifecycle.h"
#include "scheduler/web/metrics_count.h"
#include "scheduler/nodeclass.h"
#include "scheduler/nodes.h"

#define CKPT_TICK_MS 250
#define CADENCE_EVERY_MS 1000
/* Folders removed per sweep, and how often the sweep runs. */
#define SWEEP_BATCH 128
#define SWEEP_EVERY_MS 5000
/* A removal sent to a worker and not answered is sent again after this. */
#define REMOVE_RETRY_MS 300000

struct removal {
    int64_t seq;
    int64_t sent_ms;
};

struct ckpt {
    struct server *srv;
    struct loop_timer *tick;
    int64_t last_cadence_ms, last_sweep_ms;
    /* Settings (ckpt_settings). */
    char root[1024];         /* checkpoint_root, "" = in the job's workdir */
    int64_t keep;            /* checkpoint_keep */
    double keep_failed_days; /* checkpoint_keep_failed */
    int64_t grace_s;         /* checkpoint_grace */
    int64_t interval_s;      /* checkpoint_interval: c, w without MIN */
    int64_t min_s, max_s;    /* checkpoint_min_interval, _max_interval */
    /* Jobs with a request under way. */
    struct job **pending;
    int npending, pending_cap;
    /* Folders whose removal a worker is doing. */
    struct removal *removing;
    int nremoving;
    int sweep_now; /* a job ended: sweep at the next tick */
    int corrupt;   /* ckpt_corrupt: CORRUPT_HOLD, _RESTART or _FAIL */
};

enum { CORRUPT_HOLD, CORRUPT_RESTART, CORRUPT_FAIL };
static const char *const corrupt_names[] = { "hold", "restart", "fail", NULL };

static const struct handler ckpt_handlers[];

/* ---- settings ---------------------------------------------------------- */

static int duration_setting (struct config *cfg, const char *key, int64_t dflt,
                             int64_t *out, struct hpcq_error *err)
{
    const char *s = config_get (cfg, key, NULL);

    *out = dflt;
    if (s && (resource_parse_walltime (s, out, NULL) < 0 || *out < 0))
        return errprintf (err, "invalid %s '%s' (HH:MM:SS or seconds)", key, s);
    return 0;
}

static int ckpt_settings (struct ckpt *ck, struct config *cfg, struct hpcq_error *err)
{
    const char *root = config_get (cfg, "checkpoint_root", "");
    const char *kf = config_get (cfg, "checkpoint_keep_failed", NULL);

    if (root[0] && (root[0] != '/' || strlen (root) >= sizeof (ck->root) - 64))
        return errprintf (err, "invalid checkpoint_root '%s' (an absolute path)", root);
    snprintf (ck->root, sizeof (ck->root), "%s", root);
    ck->keep_failed_days = 7;
    if (kf && util_parse_double (kf, 0, 36500, &ck->keep_failed_days) < 0)
        return errprintf (err, "invalid checkpoint_keep_failed '%s' (days, 0 to 36500)",
                          kf);
    /* hold by default: a run that finds every checkpoint unusable needs a
     * person (a full disk, a bug in the app), and starting over would
     * throw away the work those checkpoints held if they can be mended. */
    const char *corrupt = config_get (cfg, "ckpt_corrupt", "hold");
    for (ck->corrupt = 0; corrupt_names[ck->corrupt]; ck->corrupt++)
        if (strcmp (corrupt, corrupt_names[ck->corrupt]) == 0)
            break;
    if (!corrupt_names[ck->corrupt])
        return errprintf (err, "invalid ckpt_corrupt '%s' (hold, restart or fail)",
                          corrupt);
    if (config_get_int (cfg, "checkpoint_keep", 2, 1, 1000, &ck->keep, err) < 0
        || duration_setting (cfg, "checkpoint_grace", 60, &ck->grace_s, err) < 0
        || duration_setting (cfg, "checkpoint_interval", 3600, &ck->interval_s, err) < 0
        || duration_setting (cfg, "checkpoint_min_interval", 300, &ck->min_s, err) < 0
        || duration_setting (cfg, "checkpoint_max_interval", 86400, &ck->max_s, err)
               < 0)
        return -1;
    if (ck->interval_s < 1 || ck->min_s < 1)
        return errprintf (err,
                          "checkpoint_interval and checkpoint_min_interval must be "
                          "at least 1 second");
    if (ck->max_s < ck->min_s)
        return errprintf (err,
                          "checkpoint_max_interval (%lld s) is below "
                          "checkpoint_min_interval (%lld s)",
                          (long long)ck->max_s, (long long)ck->min_s);
    return 0;
}

int64_t ckpt_grace_ms (struct server *srv)
{
    return srv->ckpt->grace_s * 1000;
}

/* ---- what a job asked for ---------------------------------------------- */

void ckpt_job_spec (const struct job *job, struct ckptspec *out)
{
    if (!job->spec.checkpoint || ckptspec_parse (job->spec.checkpoint, out, NULL) < 0)
        memset (out, 0, sizeof (*out));
}

const char *ckpt_job_signal (const struct job *job)
{
    return job->spec.checkpoint_signal ? job->spec.checkpoint_signal
                                       : CKPTSPEC_DEFAULT_SIGNAL;
}

/* 1 if any node job runs on is a spot node. */
static int job_on_spot (const struct job *job)
{
    for (int i = 0; job->alloc && i < job->alloc->n; i++)
        if (job->alloc->slot[i].node && nodeclass_is_spot (job->alloc->slot[i].node))
            return 1;
    return 0;
}

/* The mode in effect: -c u is auto on spot nodes. */
static enum ckpt_mode job_mode (const struct job *job, int *minutes)
{
    struct ckptspec c;

    ckpt_job_spec (job, &c);
    if (minutes)
        *minutes = c.minutes;
    if (c.mode == CKPT_UNSET && job_on_spot (job))
        return CKPT_AUTO;
    return c.mode;
}

int ckpt_job_checkpoints (struct server *srv, const struct job *job)
{
    return ckptspec_takes_signal (job_mode (job, NULL));
}

void ckpt_job_dir (struct server *srv, const struct job *job, char *buf, size_t len)
{
    if (srv->ckpt->root[0])
        snprintf (buf, len, "%s/%s", srv->ckpt->root, job->rec.uuid);
    else
        snprintf (buf, len, "%s/.hpcq/checkpoints/%s", job->spec.workdir,
                  job->rec.uuid);
}

/* ---- the interval ------------------------------------------------------ */

/* The job's median checkpoint cost, seconds; 0 if none measured. */
static double job_cost (const struct job_ckpt *jc)
{
    double v[CKPT_COSTS];

    if (!jc || jc->ncosts == 0)
        return 0;
    memcpy (v, jc->costs, jc->ncosts * sizeof (*v));
    return cadence_median (v, jc->ncosts);
}

/* The mean time between interruptions of the nodes job runs on. */
static double job_mtbi (struct server *srv, const struct job *job)
{
    double m[64];
    int n = 0;

    for (int i = 0; job->alloc && i < job->alloc->n && n < 64; i++) {
        struct node *node = job->alloc->slot[i].node;
        int seen = 0;
        for (int k = 0; k < i; k++)
            seen |= job->alloc->slot[k].node == node;
        if (node && !seen)
            m[n++] = nodeclass_mtbi (srv->nodeclass, node);
    }
    return cadence_mtbi_combined (m, n);
}

double ckpt_job_cost (const struct job *job)
{
    return job->ck && job->ck->ncosts > 0 ? job_cost (job->ck) : -1;
}

double ckpt_interval (struct server *srv, const struct job *job)
{
    struct ckpt *ck = srv->ckpt;
    int minutes;
    double cost, mtbi;

    switch (job_mode (job, &minutes)) {
    case CKPT_CPU:
    case CKPT_WALL: return minutes > 0 ? minutes * 60.0 : (double)ck->interval_s;
    case CKPT_AUTO:
        /* Until a checkpoint has been measured, the first comes after the
         * shortest interval, and measures the cost. */
        cost = job_cost (job->ck);
        mtbi = job_mtbi (srv, job);
        if (cost <= 0 || mtbi <= 0)
            return (double)ck->min_s;
        return cadence_bound (cadence_young_daly (cost, mtbi), (double)ck->min_s,
                              (double)ck->max_s);
    default: return 0;
    }
}

/* ---- requests ---------------------------------------------------------- */

/* Wall-clock seconds with their fraction, for the record. */
static double wall_now (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pending_add (struct ckpt *ck, struct job *job)
{
    for (int i = 0; i < ck->npending; i++)
        if (ck->pending[i] == job)
            return;
    if (ck->npending == ck->pending_cap) {
        ck->pending_cap = ck->pending_cap ? ck->pending_cap * 2 : 16;
        ck->pending = xrealloc (ck->pending, ck->pending_cap * sizeof (*ck->pending));
    }
    ck->pending[ck->npending++] = job;
}

static void pending_remove (struct ckpt *ck, struct job *job)
{
    for (int i = 0; i < ck->npending; i++)
        if (ck->pending[i] == job) {
            ck->pending[i] = ck->pending[--ck->npending];
            return;
        }
}

/* A checkpoint event: through lifecycle, as a change to the same state. */
static void job_event (struct server *srv, struct job *job, enum job_event ev,
                       const char *actor, const char *detail)
{
    if (lifecycle_change (srv, job, job->rec.state, ev, actor, detail) < 0)
        log_error ("job %s: record %s", job->id, job_event_name (ev));
}

/* End the request under way; the waiters are told outcome (each once,
 * from a copy: a waiter may requeue the job, which ends the attempt). */
static void request_finish (struct server *srv, struct job *job,
                            enum ckpt_outcome outcome)
{
    struct job_ckpt *jc = job->ck;
    struct ckpt_waiter w[CKPT_WAITERS];
    int nw;

    if (!jc)
        return;
    nw = jc->nw;
    memcpy (w, jc->w, sizeof (w));
    jc->nw = 0;
    jc->req_ms = 0;
    jc->req_reason[0] = '\0';
    pending_remove (srv->ckpt, job);
    for (int i = 0; i < nw; i++)
        w[i].done (srv, job, outcome, w[i].arg);
}

int ckpt_request (struct server *srv, struct job *job, const char *reason,
                  int64_t deadline_ms, ckpt_done_f done, void *arg)
{
    struct ckpt *ck = srv->ckpt;
    struct job_ckpt *jc;
    int64_t now = util_now_ms ();
    char detail[160];

    if (!ckpt_job_checkpoints (srv, job)) {
        errno = EINVAL;
        return -1;
    }
    if (job->rec.state != 'R' || !job->alloc) {
        errno = EBUSY;
        return -1;
    }
    jc = ckpt_job_state (job);
    if (done && jc->nw == CKPT_WAITERS) {
        errno = ENOSPC;
        return -1;
    }
    if (!jc->req_ms) {
        jc->req_ms = now;
        jc->req_wall = wall_now ();
        jc->req_until_ms = now + ck->grace_s * 1000;
        snprintf (jc->req_reason, sizeof (jc->req_reason), "%s", reason);
        job_signal_worker (job, ckpt_job_signal (job), "checkpoint");
        snprintf (detail, sizeof (detail), "%s (SIG%s)", reason, ckpt_job_signal (job));
        log_msg (LOG_INFO, "job %s (%s): checkpoint requested: %s", job->id,
                 job->rec.owner, detail);
    } else
        snprintf (detail, sizeof (detail),
                  "%s (the %s checkpoint under way for %.1f s "
                  "counts)",
                  reason, jc->req_reason, (now - jc->req_ms) / 1000.0);
    job_event (srv, job, JOB_EV_CHECKPOINT_REQUESTED, "scheduler", detail);
    if (done) {
        jc->w[jc->nw++] = (struct ckpt_waiter){ done, arg, deadline_ms };
        if (deadline_ms > jc->req_until_ms)
            jc->req_until_ms = deadline_ms;
    }
    pending_add (ck, job);
    return 0;
}

void ckpt_cancel (struct server *srv, struct job *job, ckpt_done_f done, void *arg)
{
    struct job_ckpt *jc = job->ck;

    for (int i = 0; jc && i < jc->nw; i++)
        if (jc->w[i].done == done && jc->w[i].arg == arg) {
            jc->w[i] = jc->w[--jc->nw];
            return;
        }
}

void ckpt_requeue_done (struct server *srv, struct job *job, enum ckpt_outcome outcome,
                        void *why)
{
    char detail[256];

    if (job->ck)
        job->ck->preempting = 0;
    if (outcome == CKPT_GONE || job->rec.state != 'R')
        return;
    snprintf (detail, sizeof (detail), "%s: %s", (const char *)why,
              outcome == CKPT_REPORTED ? "checkpoint reported"
                                       : "no checkpoint reported in time");
    if (lifecycle_requeue_from_checkpoint (srv, job, detail, "scheduler") < 0)
        log_error ("job %s: requeue after its checkpoint", job->id);
}

/* Waiters past their deadline, and requests given up on. */
static void requests_expire (struct server *srv, int64_t now)
{
    struct ckpt *ck = srv->ckpt;

    for (int i = ck->npending - 1; i >= 0; i--) {
        struct job *job = ck->pending[i];
        struct job_ckpt *jc = job->ck;
        for (int k = 0; k < jc->nw;) {
            struct ckpt_waiter w = jc->w[k];
            if (w.deadline_ms > now) {
                k++;
                continue;
            }
            jc->w[k] = jc->w[--jc->nw];
            w.done (srv, job, CKPT_EXPIRED, w.arg);
            /* The job may have been requeued: its request is over. */
            if (!jc->req_ms)
                break;
        }
        if (i < ck->npending && ck->pending[i] == job && jc->req_ms && jc->nw == 0
            && now >= jc->req_until_ms) {
            char detail[128];
            snprintf (detail, sizeof (detail), "%s: no report within %.0f s",
                      jc->req_reason, (now - jc->req_ms) / 1000.0);
            log_msg (LOG_WARNING, "job %s (%s): checkpoint %s", job->id, job->rec.owner,
                     detail);
            job_event (srv, job, JOB_EV_CHECKPOINT_MISSED, "scheduler", detail);
            /* The cadence starts over rather than asking again at once. */
            jc->base_ms = now;
            jc->base_cput = jc->cput;
            request_finish (srv, job, CKPT_EXPIRED);
        }
    }
}

/* ---- reports ----------------------------------------------------------- */

/* Keep a measured cost for the median. */
static void cost_add (struct job_ckpt *jc, double secs)
{
    jc->costs[jc->cost_next] = secs;
    jc->cost_next = (jc->cost_next + 1) % CKPT_COSTS;
    if (jc->ncosts < CKPT_COSTS)
        jc->ncosts++;
}

/* The completed checkpoint c of job: into the job's counters. */
static void stats_add (struct job_ckpt *jc, const struct db_ckpt *c)
{
    jc->count++;
    if (c->generation > jc->last_gen)
        jc->last_gen = c->generation;
    jc->last_time = c->completed_at;
    if (c->duration >= 0)
        cost_add (jc, c->duration);
}

/* What a report says: generation, bytes, the app's own seconds. */
struct report {
    int64_t generation;
    int64_t bytes;
    double seconds;
};

/* 0, or -1 with err: malformed, or a figure past its bound (the worker
 * checks them too; a worker of an older version, or one that lies, does
 * not get them into the metrics and reports). */
static int report_parse (json_t *body, struct report *r, struct hpcq_error *err)
{
    json_int_t gen = 0, bytes = -1;
    double secs = -1;

    if (json_unpack (body, "{s?I s?I s?F}", "generation", &gen, "bytes", &bytes,
                     "seconds", &secs)
        < 0)
        return errprintf (err, "job.checkpoint: malformed request");
    if (ckptreport_check (gen, bytes, secs, err) < 0)
        return -1;
    r->generation = gen;
    r->bytes = bytes;
    r->seconds = secs;
    return 0;
}

static int job_on_node (const struct job *job, const struct node *n)
{
    for (int i = 0; job->alloc && i < job->alloc->n; i++)
        if (job->alloc->slot[i].node == n)
            return 1;
    return 0;
}

static int ckpt_record (struct server *srv, struct job *job, struct node *n,
                        const struct report *r)
{
    struct job_ckpt *jc = ckpt_job_state (job);
    int64_t now = util_now_ms ();
    char dir[4096], detail[256], size[32] = "size unknown";
    struct db_ckpt c = {
        .seq = job->rec.seq,
        .attempt = job->rec.run_count,
        .path = dir,
        .node = n->name,
        .size = r->bytes,
        .completed_at = util_wall_secs (),
        .duration = -1,
    };
    int rc;

    ckpt_job_dir (srv, job, dir, sizeof (dir));
    c.generation = r->generation > 0 ? r->generation : jc->last_gen + 1;
    if (jc->req_ms) {
        c.reason = jc->req_reason;
        c.requested_at = jc->req_wall;
        c.duration = (now - jc->req_ms) / 1000.0;
    } else if (r->seconds >= 0)
        c.duration = r->seconds;
    if ((rc = db_ckpt_add (srv->db, &c)) <= 0)
        return rc;
    stats_add (jc, &c);
    metrics_checkpoint_observed (srv->metrics, c.duration, r->bytes);
    jc->base_ms = now;
    jc->base_cput = jc->cput;
    if (r->bytes >= 0)
        resource_format_size (r->bytes, size, sizeof (size));
    snprintf (detail, sizeof (detail), "generation %lld, %s, %s%.3f s%s%s",
              (long long)c.generation, size, c.duration >= 0 ? "" : "cost unknown ",
              c.duration >= 0 ? c.duration : 0.0, c.reason ? ", " : "",
              c.reason ? c.reason : "");
    job_event (srv, job, JOB_EV_CHECKPOINTED, n->name, detail);
    log_msg (LOG_INFO, "job %s (%s): checkpoint %s", job->id, job->rec.owner, detail);
    return 1;
}

/* job.checkpoint from a worker: {seq, attempt, generation?, bytes?,
 * seconds?}.  The worker checked that the job's own user reported it. */
static void ckpt_done_msg (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct node *n = conn_aux (c);
    struct report r;
    json_int_t seq;
    int attempt;
    struct job *job;
    struct hpcq_error err;

    if (!n) {
        server_reply_error (c, msg, EPROTO, "%s before node.hello", msg->type);
        return;
    }
    if (json_unpack (msg->body, "{s:I s:i}", "seq", &seq, "attempt", &attempt) < 0) {
        server_reply_error (c, msg, EPROTO, "job.checkpoint: malformed request");
        return;
    }
    if (report_parse (msg->body, &r, &err) < 0) {
        log_msg (LOG_WARNING, "node %s: checkpoint report of job %lld refused: %s",
                 n->name, (long long)seq, err.text);
        server_reply_error (c, msg, EINVAL, "job.checkpoint: %s", err.text);
        return;
    }
    job = jobs_lookup (srv->jobs, seq);
    if (!job || job->rec.run_count != attempt || !job_on_node (job, n)
        || !strchr ("RES", job->rec.state)) {
        /* An attempt that is over (requeued meanwhile): nothing to say. */
        log_msg (LOG_DEBUG, "node %s: checkpoint of a job not running there", n->name);
        server_reply_after_commit (srv, c, msg, NULL);
        return;
    }
    if (ckpt_record (srv, job, n, &r) < 0)
        log_error ("job %s: record checkpoint", job->id);
    else if (job->ck->req_ms)
        request_finish (srv, job, CKPT_REPORTED);
    server_reply_after_commit (srv, c, msg, NULL);
}

/* ---- cadence ----------------------------------------------------------- */

void ckpt_note_usage (struct server *srv, struct node *n, json_t *jobs)
{
    json_t *e;
    size_t i;

    json_array_foreach (jobs, i, e)
    {
        json_int_t seq, cput;
        int attempt;
        struct job *job;
        if (json_unpack (e, "{s:I s:i s:I}", "seq", &seq, "attempt", &attempt, "cput",
                         &cput)
            < 0)
            continue;
        job = jobs_lookup (srv->jobs, seq);
        if (job && job->rec.run_count == attempt && job_on_node (job, n))
            ckpt_job_state (job)->cput = cput;
    }
}

static int cadence_due (struct server *srv, struct job *job, int64_t now)
{
    struct job_ckpt *jc = ckpt_job_state (job);
    double t = ckpt_interval (srv, job);

    if (t <= 0 || jc->req_ms || job->launch_pending)
        return 0;
    if (job_mode (job, NULL) == CKPT_CPU)
        return jc->cput - jc->base_cput >= t;
    return now - jc->base_ms >= t * 1000;
}

static void cadence_scan (struct server *srv, int64_t now)
{
    struct job *job;

    LIST_FOREACH (job, jobs_running (srv->jobs), r_link)
    {
        if (job->rec.state != 'R' || !cadence_due (srv, job, now))
            continue;
        if (ckpt_request (srv, job, "cadence", 0, NULL, NULL) < 0)
            log_error ("job %s: checkpoint request", job->id);
    }
}

/* ---- attempts ---------------------------------------------------------- */

void ckpt_attempt_started (struct server *srv, struct job *job)
{
    struct job_ckpt *jc = ckpt_job_state (job);

    jc->base_ms = util_now_ms ();
    jc->cput = jc->base_cput = 0;
    jc->suspended_ms = jc->suspend_since_ms = 0;
    jc->preempting = 0;
}

void ckpt_attempt_ended (struct server *srv, struct job *job)
{
    if (job->ck && job->ck->req_ms)
        request_finish (srv, job, CKPT_GONE);
}

/* ---- retention --------------------------------------------------------- */

int ckpt_job_finished (struct server *srv, struct job *job)
{
    struct ckpt *ck = srv->ckpt;
    char dir[4096];
    int64_t after = util_wall_secs ();

    if (job->is_array || job->rec.run_count == 0)
        return 0; /* it never ran: nothing was made */
    if (!job->rec.has_exit || job->rec.exit_status != 0)
        after += (int64_t)llround (ck->keep_failed_days * 86400);
    else
        ck->sweep_now = 1;
    ckpt_job_dir (srv, job, dir, sizeof (dir));
    return db_ckptdir_add (srv->db, job->rec.seq, dir, job->rec.uid, after);
}

int ckpt_corrupt (struct server *srv, struct job *job, char *why, size_t len)
{
    struct ckpt *ck = srv->ckpt;
    struct job_ckpt *jc = job->ck;
    int n = jc ? jc->count : 0, restart = ck->corrupt == CORRUPT_RESTART;
    char dir[4096];

    why[0] = '\0';
    if (n == 0)
        return 0;
    snprintf (why, len,
              "no valid checkpoint: its app found none of its %d checkpoint%s usable "
              "(exit status %d); ckpt_corrupt = %s",
              n, n == 1 ? "" : "s", CKPT_EXIT_INVALID, corrupt_names[ck->corrupt]);
    log_msg (LOG_WARNING, "job %s (%s): %s", job->id, job->rec.owner, why);
    if (db_ckpt_invalidate (srv->db, job->rec.seq) < 0
        || db_event_add (srv->db, job->rec.seq, util_wall_secs (),
                         "checkpoints_invalid", "scheduler", why)
               < 0)
        return -1;
    jc->invalid += n;
    jc->count = 0;
    jc->last_gen = jc->last_time = 0;
    if (ck->corrupt == CORRUPT_FAIL)
        return 0;
    if (lifecycle_requeue (srv, job, why, "scheduler") < 0)
        return -1;
    snprintf (job->rec.hold_types, sizeof (job->rec.hold_types), "%s",
              restart ? "o" : "u");
    job_set_comment (job, "%s: %s",
                     restart ? "Held until its checkpoint folder is removed" : "Held",
                     why);
    if (lifecycle_change (srv, job, 'H', JOB_EV_HELD, "scheduler", job->rec.hold_types)
        < 0)
        return -1;
    if (!restart)
        return 1;
    /* Removed as its owner by a worker (the sweep), then released. */
    jc->restart_on_removal = 1;
    ck->sweep_now = 1;
    ckpt_job_dir (srv, job, dir, sizeof (dir));
    return db_ckptdir_add (srv->db, job->rec.seq, dir, job->rec.uid, util_wall_secs ())
                   < 0
               ? -1
               : 1;
}

/* ckpt_corrupt = restart: the folder is gone, the job runs again. */
static void corrupt_restart (struct server *srv, int64_t seq)
{
    struct job *job = jobs_lookup (srv->jobs, seq);

    if (!job || !job->ck || !job->ck->restart_on_removal || job->rec.state != 'H')
        return;
    job->ck->restart_on_removal = 0;
    snprintf (job->rec.hold_types, sizeof (job->rec.hold_types), "n");
    job_set_comment (job, "Released: its unusable checkpoints were removed; it runs "
                          "again from the beginning");
    if (lifecycle_change (srv, job, 'Q', JOB_EV_RELEASED, "scheduler",
                          "checkpoint folder removed")
        < 0)
        log_error ("job %s: release after its checkpoints were removed", job->id);
    server_request_pass (srv);
}

static int removing_find (struct ckpt *ck, int64_t seq)
{
    for (int i = 0; i < ck->nremoving; i++)
        if (ck->removing[i].seq == seq)
            return i;
    return -1;
}

/* A node to do the removal: the first one up (checkpoint folders are on
 * storage every node sees). */
static struct node *removal_node (struct server *srv)
{
    struct node **all;
    int n;

    all = nodes_all (srv->nodes, &n);
    for (int i = 0; i < n; i++)
        if (all[i]->state == NODE_UP && all[i]->conn)
            return all[i];
    return NULL;
}

static int sweep_one (int64_t seq, const char *path, int64_t uid, void *arg)
{
    struct server *srv = arg;
    struct ckpt *ck = srv->ckpt;
    int64_t now = util_now_ms ();
    int i = removing_find (ck, seq);
    struct node *n;
    struct wire_msg m;

    if (i >= 0 && now - ck->removing[i].sent_ms < REMOVE_RETRY_MS)
        return 0;
    if (!(n = removal_node (srv)))
        return 0; /* nobody to do it: the next sweep */
    wire_request_init (&m, "ckpt.remove", seq,
                       json_pack ("{s:I s:s s:I}", "seq", (json_int_t)seq, "path", path,
                                  "uid", (json_int_t)uid));
    if (nodes_send (n, &m) == 0) {
        if (i < 0) {
            ck->removing =
                xrealloc (ck->removing, (ck->nremoving + 1) * sizeof (*ck->removing));
            i = ck->nremoving++;
        }
        ck->removing[i] = (struct removal){ seq, now };
        char id[160];
        jobs_key_text (srv->jobs, seq, id, sizeof (id));
        log_msg (LOG_DEBUG, "job %s: checkpoint folder %s to be removed by node %s", id,
                 path, n->name);
    }
    wire_msg_release (&m);
    return 0;
}

static void sweep (struct server *srv)
{
    if (removal_node (srv)
        && db_ckptdir_due (srv->db, util_wall_secs (), SWEEP_BATCH, sweep_one, srv) < 0)
        log_error ("checkpoint folders: sweep");
}

/* ckpt.removed from the worker that removed a folder: {seq, ok, error?}. */
static void ckpt_removed_msg (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct ckpt *ck = srv->ckpt;
    json_int_t seq;
    int ok, i;
    const char *why = NULL;
    char id[160];

    if (!conn_aux (c)
        || json_unpack (msg->body, "{s:I s:b s?s}", "seq", &seq, "ok", &ok, "error",
                        &why)
               < 0) {
        server_reply_error (c, msg, EPROTO, "ckpt.removed: malformed request");
        return;
    }
    if ((i = removing_find (ck, seq)) >= 0)
        ck->removing[i] = ck->removing[--ck->nremoving];
    jobs_key_text (srv->jobs, seq, id, sizeof (id));
    if (!ok)
        log_msg (LOG_WARNING, "job %s: checkpoint folder not removed: %s", id,
                 why ? why : "?");
    /* A folder that cannot be removed (gone, not the owner's) is not
     * tried for ever. */
    if (db_ckptdir_removed (srv->db, seq, util_wall_secs ()) < 0)
        log_error ("job %s: record checkpoint folder removal", id);
    corrupt_restart (srv, seq);
    server_reply_after_commit (srv, c, msg, NULL);
}

/* ---- the timer --------------------------------------------------------- */

static void ckpt_tick (struct loop *l, void *arg)
{
    struct server *srv = arg;
    struct ckpt *ck = srv->ckpt;
    int64_t now = util_now_ms ();

    if (jobs_loading (srv->jobs))
        return; /* after a restart: once the jobs' requests are parsed */
    if (ck->npending > 0)
        requests_expire (srv, now);
    if (now - ck->last_cadence_ms >= CADENCE_EVERY_MS) {
        ck->last_cadence_ms = now;
        cadence_scan (srv, now);
    }
    if (ck->sweep_now || now - ck->last_sweep_ms >= SWEEP_EVERY_MS) {
        ck->sweep_now = 0;
        ck->last_sweep_ms = now;
        sweep (srv);
    }
}

/* ---- what the launch and qstat carry ----------------------------------- */

void ckpt_launch_fill (struct server *srv, const struct job *job,
                       struct launch_req *req)
{
    req->has_ckpt = 1;
    ckpt_job_dir (srv, job, req->ckpt_dir, sizeof (req->ckpt_dir));
    req->ckpt_keep = (int)srv->ckpt->keep;
    snprintf (req->ckpt_signal, sizeof (req->ckpt_signal), "%s", ckpt_job_signal (job));
    req->ckpt_cpu = job_mode (job, NULL) == CKPT_CPU;
}

static void set_ctime (json_t *o, const char *key, int64_t secs)
{
    char buf[64];

    util_format_ctime (secs, buf, sizeof (buf));
    json_object_set_new (o, key, json_string (buf));
}

void ckpt_attr_json (struct server *srv, const struct job *job, json_t *o)
{
    const struct job_ckpt *jc = job->ck;
    struct ckptspec c;
    char text[32];
    json_t *cp = json_object ();
    double t;

    ckpt_job_spec (job, &c);
    ckptspec_format (&c, text, sizeof (text));
    json_object_set_new (o, "Checkpoint", json_string (text));
    json_object_set_new (cp, "signal", json_string (ckpt_job_signal (job)));
    if (jc && jc->count > 0) {
        set_ctime (cp, "last", jc->last_time);
        json_object_set_new (cp, "generation", json_integer (jc->last_gen));
    }
    json_object_set_new (cp, "count", json_integer (jc ? jc->count : 0));
    if (jc && jc->invalid > 0)
        json_object_set_new (cp, "invalid", json_integer (jc->invalid));
    if (jc && jc->ncosts > 0) {
        snprintf (text, sizeof (text), "%.3f", job_cost (jc));
        json_object_set_new (cp, "cost", json_string (text));
    }
    if ((job->rec.state == 'R' || job->rec.state == 'S')
        && (t = ckpt_interval (srv, job)) > 0) {
        resource_format_walltime ((int64_t)llround (t), text, sizeof (text));
        json_object_set_new (cp, "interval", json_string (text));
        /* What Young/Daly took as the mean time between interruptions. */
        if (job_mode (job, NULL) == CKPT_AUTO)
            json_object_set_new (cp, "mtbi",
                                 json_integer (llround (job_mtbi (srv, job))));
    }
    json_object_set_new (o, "checkpoint", cp);
    if (jc && jc->preempt_count > 0) {
        json_t *p = json_object ();
        json_object_set_new (p, "count", json_integer (jc->preempt_count));
        json_object_set_new (p, "last_reason", json_string (jc->preempt_reason));
        json_object_set_new (o, "preemption", p);
    }
}

/* ---- loading ----------------------------------------------------------- */

static int load_ckpt (const struct db_ckpt *c, void *arg)
{
    struct server *srv = arg;
    struct job *job = jobs_lookup (srv->jobs, c->seq);

    if (job)
        stats_add (ckpt_job_state (job), c);
    return 0;
}

static int load_preempt (int64_t seq, int attempt, char method, const char *reason,
                         void *arg)
{
    struct server *srv = arg;
    struct job *job = jobs_lookup (srv->jobs, seq);
    struct job_ckpt *jc;

    if (!job)
        return 0;
    jc = ckpt_job_state (job);
    jc->preempt_count++;
    jc->auto_resume = method == 'S' && attempt == job->rec.run_count;
    snprintf (jc->preempt_reason, sizeof (jc->preempt_reason), "%s",
              reason ? reason : "");
    return 0;
}

/* A job held until its folder is removed (ckpt_corrupt = restart) across
 * a restart: the release waits for the removal again. */
static int load_held_dir (int64_t seq, const char *path, int64_t uid, void *arg)
{
    struct server *srv = arg;
    struct job *job = jobs_lookup (srv->jobs, seq);

    (void)path;
    (void)uid;
    if (!job || job->rec.state != 'H' || !strchr (job->rec.hold_types, 'o'))
        return 0;
    ckpt_job_state (job)->restart_on_removal = 1;
    srv->ckpt->sweep_now = 1;
    return 0;
}

int ckpt_load (struct ckpt *ck)
{
    struct server *srv = ck->srv;
    int64_t now = util_now_ms ();
    struct job *job;

    if (db_ckpt_foreach (srv->db, load_ckpt, srv) < 0
        || db_preempt_foreach (srv->db, load_preempt, srv) < 0
        || db_ckptdir_held (srv->db, load_held_dir, srv) < 0)
        return -1;
    /* Running jobs count their cadence from the restart: when their last
     * checkpoint was in monotonic time is not known. */
    LIST_FOREACH (job, jobs_running (srv->jobs), r_link)
    ckpt_job_state (job)->base_ms = now;
    /* Suspended jobs were loaded without their resources. */
    LIST_FOREACH (job, jobs_suspended (srv->jobs), s_link)
    {
        ckpt_job_state (job)->released = 1;
        job->ck->suspend_since_ms = now;
    }
    return 0;
}

/* ---- life -------------------------------------------------------------- */

static const struct handler ckpt_handlers[] = {
    { "job.checkpoint", ckpt_done_msg, ROLE_NODE },
    { "ckpt.removed", ckpt_removed_msg, ROLE_NODE },
    { NULL, NULL, 0 },
};

/* Each attempt's checkpoint bookkeeping, and the job's checkpoints once
 * it ends, in the change's transaction. */
static int ckpt_on_job (struct server *srv, struct job *job,
                        const struct lifecycle_event *ev, void *arg)
{
    switch (ev->point) {
    case LC_ATTEMPT_STARTED: ckpt_attempt_started (srv, job); return 0;
    case LC_ATTEMPT_ENDED: ckpt_attempt_ended (srv, job); return 0;
    case LC_FINISHED: return ckpt_job_finished (srv, job);
    default: return 0;
    }
}

static const struct lifecycle_sub ckpt_sub = { "ckpt", ckpt_on_job, 1 };

struct ckpt *ckpt_create (struct server *srv, struct hpcq_error *err)
{
    struct ckpt *ck = xzalloc (sizeof (*ck));

    ck->srv = srv;
    ck->last_cadence_ms = ck->last_sweep_ms = util_now_ms ();
    if (ckpt_settings (ck, srv->cfg, err) < 0)
        goto error;
    if (server_register (srv, ckpt_handlers) < 0
        || !(ck->tick =
                 loop_timer_add (srv->loop, CKPT_TICK_MS, CKPT_TICK_MS, ckpt_tick, srv))
        || lifecycle_subscribe (srv, &ckpt_sub, ck) < 0) {
        errprintf (err, "cannot register checkpoints: %s", strerror (errno));
        goto error;
    }
    return ck;
error:
    ckpt_destroy (ck);
    return NULL;
}

void ckpt_destroy (struct ckpt *ck)
{
    if (!ck)
        return;
    loop_timer_remove (ck->tick);
    free (ck->pending);
    free (ck->removing);
    free (ck);
}
