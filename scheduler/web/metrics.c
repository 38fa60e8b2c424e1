/* metrics.c - see metrics.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/util.h"
#include "scheduler/lifecycle_sub.h"
#include "scheduler/web/http.h"
#include "scheduler/gpu_report.h"
#include "scheduler/job_counts.h"
#include "scheduler/jobs.h"
#include "scheduler/web/metrics.h"
#include "scheduler/node_admin.h"
#include "scheduler/nodeclass.h"
#include "scheduler/nodes.h"
#include "scheduler/queue.h"
#include "scheduler/telemetry.h"

/* Buckets in seconds (Prometheus's "le" bounds; +Inf is implicit). */
static const double wait_bounds[] = { 1,   5,    10,   30,   60,    300,
                                      600, 1800, 3600, 7200, 21600, 86400 };
static const double pass_bounds[] = { 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                      0.1,    0.25,  0.5,    1,     2.5,  5 };
static const double commit_bounds[] = { 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                        0.01,   0.025,   0.05,   0.1,   0.25,   1 };
static const double ckpt_bounds[] = { 0.1, 0.5, 1,   5,    10,   30,  60,
                                      120, 300, 600, 1200, 1800, 3600 };
static const double size_bounds[] = { 1e6,  1e7,  1e8,    1e9,  1e10, 2.5e10,
                                      5e10, 1e11, 2.5e11, 5e11, 1e12, 1e13 };
#define HIST_MAX 16

struct histogram {
    const double *bounds;
    int nb;
    uint64_t counts[HIST_MAX]; /* per bucket, not cumulative */
    uint64_t count;
    double sum;
};

static const char *const exit_classes[] = { "success",  "failure",   "signal",
                                            "walltime", "node_lost", "deleted",
                                            "system" };
#define NCLASSES ((int)ARRAY_SIZE (exit_classes))

/* How preemption took a job's resources (preempt.h's S, C, R, D), and
 * how a job left a reclaimed node. */
static const char preempt_methods[] = "SCRD";
static const char *const preempt_hows[] = { "suspend", "checkpoint", "requeue",
                                            "delete" };
static const char *const reclaim_hows[] = { "checkpoint", "no_checkpoint", "lost" };
#define NPREEMPT 4
#define NRECLAIM 3

/* The counters of one queue (the queues are few: a plain array). */
struct metrics_queue {
    char name[64];
    uint64_t submitted, started, requeued, suspended;
    uint64_t ended[NCLASSES];
    struct histogram wait;
    uint64_t preempted[NPREEMPT];
    uint64_t ckpt_ok, ckpt_failed;
    uint64_t reclaimed[NRECLAIM];
    double cost_spot, cost_ondemand; /* ended attempts, on each kind of node */
};

/* Reclaims per node class (classes are few, as queues). */
struct metrics_class {
    char name[64];
    uint64_t notices, taken;
};

struct metrics {
    struct server *srv;
    struct metrics_queue *q;
    int nq;
    struct histogram pass, commit;
    struct histogram ckpt_duration, ckpt_size;
    struct metrics_class *cl;
    int ncl;
    uint64_t http[6];   /* answers by status class: 1xx..5xx */
    double last_render; /* seconds the last scrape took */
    int job_gpu;        /* metrics_job_gpu: the per-job GPU series */
};

static void hist_init (struct histogram *h, const double *bounds, int nb)
{
    memset (h, 0, sizeof (*h));
    h->bounds = bounds;
    h->nb = nb < HIST_MAX ? nb : HIST_MAX;
}

static void hist_observe (struct histogram *h, double v)
{
    int i = 0;

    while (i < h->nb && v > h->bounds[i])
        i++;
    if (i < h->nb)
        h->counts[i]++;
    h->count++;
    h->sum += v;
}

static int metrics_on_job (struct server *srv, struct job *job,
                           const struct lifecycle_event *ev, void *arg)
{
    if (ev->point == LC_RECORDED)
        metrics_job_event (arg, job, ev->old, ev->event);
    return 0;
}

static const struct lifecycle_sub metrics_sub = { "metrics", metrics_on_job, 0 };

struct metrics *metrics_create (struct server *srv)
{
    struct metrics *m = xzalloc (sizeof (*m));

    m->srv = srv;
    hist_init (&m->pass, pass_bounds, ARRAY_SIZE (pass_bounds));
    hist_init (&m->commit, commit_bounds, ARRAY_SIZE (commit_bounds));
    hist_init (&m->ckpt_duration, ckpt_bounds, ARRAY_SIZE (ckpt_bounds));
    hist_init (&m->ckpt_size, size_bounds, ARRAY_SIZE (size_bounds));
    if (lifecycle_subscribe (srv, &metrics_sub, m) < 0)
        log_error ("metrics: cannot count job events");
    return m;
}

void metrics_destroy (struct metrics *m)
{
    if (!m)
        return;
    free (m->q);
    free (m->cl);
    free (m);
}

static struct metrics_queue *metrics_queue (struct metrics *m, const char *name)
{
    for (int i = 0; i < m->nq; i++)
        if (strcmp (m->q[i].name, name) == 0)
            return &m->q[i];
    m->q = xrealloc (m->q, (m->nq + 1) * sizeof (*m->q));
    memset (&m->q[m->nq], 0, sizeof (m->q[0]));
    snprintf (m->q[m->nq].name, sizeof (m->q[0].name), "%s", name);
    hist_init (&m->q[m->nq].wait, wait_bounds, ARRAY_SIZE (wait_bounds));
    return &m->q[m->nq++];
}

const char *metrics_exit_class (int exit_status, int deleted)
{
    if (deleted)
        return "deleted";
    if (exit_status == 0)
        return "success";
    if (exit_status > 0 && exit_status < 256)
        return "failure";
    if (exit_status >= 256)
        return "signal";
    if (exit_status == JOB_EXEC_KILL_WALLTIME)
        return "walltime";
    if (exit_status == JOB_EXEC_NODE_LOST)
        return "node_lost";
    return "system";
}

static int class_index (const char *name)
{
    for (int i = 0; i < NCLASSES; i++)
        if (strcmp (exit_classes[i], name) == 0)
            return i;
    return NCLASSES - 1;
}

void metrics_job_event (struct metrics *m, const struct job *job, char old,
                        enum job_event ev)
{
    struct metrics_queue *q;

    /* An array is one submission; what runs is counted by its subjobs. */
    if (!m || (job->is_array && ev != JOB_EV_SUBMITTED))
        return;
    q = metrics_queue (m, job->rec.queue);
    switch (ev) {
    case JOB_EV_SUBMITTED: q->submitted++; break;
    case JOB_EV_STARTED:
        q->started++;
        if (job->rec.run_count == 1)
            hist_observe (&q->wait, (double)(job->rec.stime - job->rec.ctime));
        break;
    case JOB_EV_REQUEUED: q->requeued++; break;
    case JOB_EV_SUSPENDED: q->suspended++; break;
    case JOB_EV_CHECKPOINTED: q->ckpt_ok++; break;
    case JOB_EV_CHECKPOINT_MISSED: q->ckpt_failed++; break;
    case JOB_EV_DELETED:
        /* A job deleted before it ran ends here; a running one ends when
         * its worker reports it (FINISHED from E). */
        if (job->rec.state == 'F')
            q->ended[class_index ("deleted")]++;
        break;
    case JOB_EV_FINISHED:
        q->ended[class_index (metrics_exit_class (job->rec.exit_status, old == 'E'))]++;
        break;
    default: break;
    }
}

void metrics_preempted (struct metrics *m, const struct job *job, char method)
{
    const char *p = method ? strchr (preempt_methods, method) : NULL;

    if (m && p)
        metrics_queue (m, job->rec.queue)->preempted[p - preempt_methods]++;
}

static struct metrics_class *metrics_class (struct metrics *m, const char *name)
{
    for (int i = 0; i < m->ncl; i++)
        if (strcmp (m->cl[i].name, name) == 0)
            return &m->cl[i];
    m->cl = xrealloc (m->cl, (m->ncl + 1) * sizeof (*m->cl));
    memset (&m->cl[m->ncl], 0, sizeof (m->cl[0]));
    snprintf (m->cl[m->ncl].name, sizeof (m->cl[0].name), "%s", name);
    return &m->cl[m->ncl++];
}

void metrics_reclaim_notice (struct metrics *m, const struct node *n, int taken)
{
    char cls[NODECLASS_NAME_MAX];
    struct metrics_class *c;

    if (!m)
        return;
    c = metrics_class (m, nodeclass_of (n, cls, sizeof (cls)));
    if (taken)
        c->taken++;
    else
        c->notices++;
}

void metrics_reclaimed (struct metrics *m, const struct job *job, int how)
{
    if (m && how >= 0 && how < NRECLAIM)
        metrics_queue (m, job->rec.queue)->reclaimed[how]++;
}

void metrics_checkpoint_observed (struct metrics *m, double seconds, int64_t bytes)
{
    if (!m)
        return;
    if (seconds >= 0)
        hist_observe (&m->ckpt_duration, seconds);
    if (bytes >= 0)
        hist_observe (&m->ckpt_size, (double)bytes);
}

void metrics_cost (struct metrics *m, const struct job *job, double cost, double spot)
{
    struct metrics_queue *q;

    if (!m)
        return;
    q = metrics_queue (m, job->rec.queue);
    q->cost_spot += spot;
    q->cost_ondemand += cost - spot;
}

void metrics_pass_observed (struct metrics *m, double seconds)
{
    if (m)
        hist_observe (&m->pass, seconds);
}

void metrics_commit_observed (struct metrics *m, double seconds)
{
    if (m)
        hist_observe (&m->commit, seconds);
}

void metrics_http_answered (struct metrics *m, int status)
{
    if (m && status >= 100 && status < 600)
        m->http[status / 100]++;
}

/* ---- the exposition ----------------------------------------------------- */

void metrics_put_label (FILE *f, const char *v)
{
    gpu_report_put_label (f, v);
}

static void head (FILE *f, const char *name, const char *type, const char *help)
{
    fprintf (f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void hist_put (FILE *f, const char *name, const char *label, const char *value,
                      const struct histogram *h)
{
    uint64_t cum = 0;
    char pre[160] = "";

    if (label)
        snprintf (pre, sizeof (pre), "%s=", label);
    for (int i = 0; i < h->nb; i++) {
        cum += h->counts[i];
        fprintf (f, "%s_bucket{", name);
        if (label) {
            fputs (pre, f);
            metrics_put_label (f, value);
            putc (',', f);
        }
        fprintf (f, "le=\"%g\"} %llu\n", h->bounds[i], (unsigned long long)cum);
    }
    fprintf (f, "%s_bucket{", name);
    if (label) {
        fputs (pre, f);
        metrics_put_label (f, value);
        putc (',', f);
    }
    fprintf (f, "le=\"+Inf\"} %llu\n", (unsigned long long)h->count);
    if (label) {
        fprintf (f, "%s_sum{%s", name, pre);
        metrics_put_label (f, value);
        fprintf (f, "} %.9g\n%s_count{%s", h->sum, name, pre);
        metrics_put_label (f, value);
        fprintf (f, "} %llu\n", (unsigned long long)h->count);
    } else
        fprintf (f, "%s_sum %.9g\n%s_count %llu\n", name, h->sum, name,
                 (unsigned long long)h->count);
}

/* A counter per queue (and exit class). */
static void put_queue_counters (struct metrics *m, FILE *f)
{
    static const struct {
        const char *name, *help;
        size_t off;
    } c[] = {
        { "hpcq_jobs_submitted_total", "Jobs (and array subjobs) accepted.",
          offsetof (struct metrics_queue, submitted) },
        { "hpcq_jobs_started_total", "Attempts started.",
          offsetof (struct metrics_queue, started) },
        { "hpcq_jobs_requeued_total",
          "Attempts ended by the server and queued "
          "again (node lost; preemption once it exists).",
          offsetof (struct metrics_queue, requeued) },
        { "hpcq_jobs_suspended_total", "Jobs suspended (preemption).",
          offsetof (struct metrics_queue, suspended) },
    };

    for (size_t k = 0; k < ARRAY_SIZE (c); k++) {
        head (f, c[k].name, "counter", c[k].help);
        for (int i = 0; i < m->nq; i++) {
            fprintf (f, "%s{queue=", c[k].name);
            metrics_put_label (f, m->q[i].name);
            fprintf (f, "} %llu\n",
                     (unsigned long long)*(uint64_t *)((char *)&m->q[i] + c[k].off));
        }
    }
    head (f, "hpcq_jobs_ended_total", "counter", "Jobs ended, by how (exit_class).");
    for (int i = 0; i < m->nq; i++)
        for (int e = 0; e < NCLASSES; e++) {
            fputs ("hpcq_jobs_ended_total{queue=", f);
            metrics_put_label (f, m->q[i].name);
            fprintf (f, ",exit_class=\"%s\"} %llu\n", exit_classes[e],
                     (unsigned long long)m->q[i].ended[e]);
        }
    head (f, "hpcq_job_wait_seconds", "histogram",
          "Time from submission to the first start of a job.");
    for (int i = 0; i < m->nq; i++)
        hist_put (f, "hpcq_job_wait_seconds", "queue", m->q[i].name, &m->q[i].wait);
}

/* One series of a per-queue counter with a second label. */
static void put_queue_pair (FILE *f, const char *metric, const char *queue,
                            const char *label, const char *value, const char *num)
{
    fprintf (f, "%s{queue=", metric);
    metrics_put_label (f, queue);
    fprintf (f, ",%s=\"%s\"} %s\n", label, value, num);
}

static void put_u64 (char *buf, size_t len, uint64_t v)
{
    snprintf (buf, len, "%llu", (unsigned long long)v);
}

/* Preemptions, reclaims, checkpoints and cost (issue 12's concepts). */
static void put_interruptions (struct metrics *m, FILE *f)
{
    char num[64];

    head (f, "hpcq_preemptions_total", "counter",
          "Jobs preempted, by how their resources were taken (preempt_order).");
    for (int i = 0; i < m->nq; i++)
        for (int k = 0; k < NPREEMPT; k++) {
            put_u64 (num, sizeof (num), m->q[i].preempted[k]);
            put_queue_pair (f, "hpcq_preemptions_total", m->q[i].name, "how",
                            preempt_hows[k], num);
        }
    head (f, "hpcq_reclaimed_jobs_total", "counter",
          "Jobs moved off a reclaimed spot node: requeued after their "
          "checkpoint, requeued without one, or lost with the node.");
    for (int i = 0; i < m->nq; i++)
        for (int k = 0; k < NRECLAIM; k++) {
            put_u64 (num, sizeof (num), m->q[i].reclaimed[k]);
            put_queue_pair (f, "hpcq_reclaimed_jobs_total", m->q[i].name, "how",
                            reclaim_hows[k], num);
        }
    head (f, "hpcq_checkpoints_total", "counter",
          "Checkpoints reported complete (ok) and asked for but not reported "
          "within checkpoint_grace (failed).");
    for (int i = 0; i < m->nq; i++) {
        put_u64 (num, sizeof (num), m->q[i].ckpt_ok);
        put_queue_pair (f, "hpcq_checkpoints_total", m->q[i].name, "result", "ok", num);
        put_u64 (num, sizeof (num), m->q[i].ckpt_failed);
        put_queue_pair (f, "hpcq_checkpoints_total", m->q[i].name, "result", "failed",
                        num);
    }
    head (f, "hpcq_job_cost_total", "counter",
          "What ended attempts cost (price_per_hour of the nodes they held), "
          "on spot and on on-demand nodes.");
    for (int i = 0; i < m->nq; i++) {
        snprintf (num, sizeof (num), "%.6f", m->q[i].cost_spot);
        put_queue_pair (f, "hpcq_job_cost_total", m->q[i].name, "node_kind", "spot",
                        num);
        snprintf (num, sizeof (num), "%.6f", m->q[i].cost_ondemand);
        put_queue_pair (f, "hpcq_job_cost_total", m->q[i].name, "node_kind",
                        "on_demand", num);
    }
    head (f, "hpcq_reclaim_notices_total", "counter",
          "Reclaim notices for spot nodes (a provider's notice, or pbsnodes "
          "--reclaim), by node class.");
    for (int i = 0; i < m->ncl; i++) {
        fputs ("hpcq_reclaim_notices_total{node_class=", f);
        metrics_put_label (f, m->cl[i].name);
        fprintf (f, "} %llu\n", (unsigned long long)m->cl[i].notices);
    }
    head (f, "hpcq_nodes_reclaimed_total", "counter",
          "Spot nodes their provider took back, by node class.");
    for (int i = 0; i < m->ncl; i++) {
        fputs ("hpcq_nodes_reclaimed_total{node_class=", f);
        metrics_put_label (f, m->cl[i].name);
        fprintf (f, "} %llu\n", (unsigned long long)m->cl[i].taken);
    }
    head (f, "hpcq_checkpoint_duration_seconds", "histogram",
          "Time from the checkpoint signal to the report (or the app's own "
          "measure of a checkpoint nobody asked for).");
    hist_put (f, "hpcq_checkpoint_duration_seconds", NULL, NULL, &m->ckpt_duration);
    head (f, "hpcq_checkpoint_size_bytes", "histogram",
          "Size of the checkpoints whose apps said it.");
    hist_put (f, "hpcq_checkpoint_size_bytes", NULL, NULL, &m->ckpt_size);
}

/* ---- per-job GPU series ------------------------------------------------ */

int metrics_configure (struct metrics *m, const struct config *cfg,
                       struct hpcq_error *err)
{
    const char *v = config_get (cfg, "metrics_job_gpu", "false");

    if (util_parse_bool (v, &m->job_gpu) < 0)
        return errprintf (err, "metrics_job_gpu: invalid value '%s' (true or false)",
                          v);
    return 0;
}

/* The labels of one GPU of a running job: jobid, user, node, gpu (the
 * node's index, DCGM exporter's "gpu"), and simulated. */
static void put_job_gpu_labels (FILE *f, const char *metric, const struct job *job,
                                int index)
{
    const struct gpu_live *l = job->gpu_live;

    fprintf (f, "%s{jobid=", metric);
    metrics_put_label (f, job->id);
    fputs (",user=", f);
    metrics_put_label (f, job->rec.owner);
    fputs (",node=", f);
    metrics_put_label (f, job->alloc->slot[0].node_name);
    fprintf (f, ",gpu=\"%d\",simulated=\"%s\"}", index,
             l->total.simulated ? "true" : "false");
}

/* One family: which 0 utilisation, 1 memory, 2 energy, for each GPU of
 * each running job that reported them. */
static void put_job_gpu_family (struct metrics *m, FILE *f, const char *metric,
                                const char *type, const char *help, int which)
{
    struct job *job;

    head (f, metric, type, help);
    LIST_FOREACH (job, jobs_running (m->srv->jobs), r_link)
    {
        const struct gpu_live *l = job->gpu_live;
        if (!l || !job->alloc || job->alloc->n == 0)
            continue;
        for (int g = 0; g < l->n; g++) {
            if ((which == 0 && l->gpu[g].util < 0) || (which == 1 && l->gpu[g].mem < 0))
                continue;
            put_job_gpu_labels (f, metric, job, l->gpu[g].index);
            if (which == 0)
                fprintf (f, " %g\n", l->gpu[g].util);
            else if (which == 1)
                fprintf (f, " %lld\n", (long long)l->gpu[g].mem);
            else
                fprintf (f, " %.3f\n", l->gpu[g].energy_j);
        }
    }
}

/* Off unless metrics_job_gpu is true: a series per GPU of each running
 * job (cardinality grows with the jobs, so only running ones, and only
 * those their mother superior reported).  Named as DCGM exporter's
 * device fields with its hpc_job mapping would give them, per job:
 * DCGM_FI_DEV_GPU_UTIL, DCGM_FI_DEV_FB_USED (here in bytes) and
 * DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (here in joules). */
static void put_job_gpus (struct metrics *m, FILE *f)
{
    put_job_gpu_family (
        m, f, "hpcq_job_gpu_utilization", "gauge",
        "GPU utilisation (%) of a running job's GPU at its last reading "
        "(simulated GPUs: the configured sim_gpu_util).",
        0);
    put_job_gpu_family (m, f, "hpcq_job_gpu_memory_used_bytes", "gauge",
                        "GPU memory a running job's GPU held at its last reading.", 1);
    put_job_gpu_family (m, f, "hpcq_job_gpu_energy_joules_total", "counter",
                        "Energy a running job's GPU used since the job started.", 2);
}

/* Jobs by state, per queue and per user: the counts jobs.c keeps
 * (job_counts.h), or with recount made anew from every job, as every
 * scrape did before (a check on the kept ones, and the bench's baseline). */
static void put_user (const char *user, int running, int queued, void *arg)
{
    FILE *f = arg;

    fputs ("hpcq_user_jobs{user=", f);
    metrics_put_label (f, user);
    fprintf (f, ",state=\"running\"} %d\nhpcq_user_jobs{user=", running);
    metrics_put_label (f, user);
    fprintf (f, ",state=\"queued\"} %d\n", queued);
}

static void put_jobs (struct metrics *m, FILE *f, int per_user, int recount)
{
    struct server *srv = m->srv;
    int nq;
    struct queue **qs = queue_all (srv->queues, &nq);
    struct job_counts *fresh = recount ? jobs_counts_recount (srv->jobs) : NULL;
    const struct job_counts *c = fresh ? fresh : jobs_counts (srv->jobs);

    head (f, "hpcq_jobs", "gauge", "Jobs (and array subjobs) by state and queue.");
    for (int q = 0; q < nq; q++)
        for (int s = 0; s < JOB_COUNTS_NSTATES; s++) {
            fputs ("hpcq_jobs{queue=", f);
            metrics_put_label (f, qs[q]->rec.name);
            fprintf (f, ",state=\"%s\"} %d\n", job_counts_state_names[s],
                     job_counts_get (c, qs[q]->rec.name, job_counts_states[s]));
        }
    head (f, "hpcq_jobs_in_memory", "gauge",
          "Jobs the scheduler holds, finished ones of the history window included.");
    fprintf (f, "hpcq_jobs_in_memory %d\n", jobs_in_memory (srv->jobs));
    if (per_user) {
        head (f, "hpcq_user_jobs", "gauge", "Running and queued jobs per user.");
        job_counts_users (c, put_user, f);
    }
    job_counts_destroy (fresh);
}

/* ---- nodes and their resources ----------------------------------------- */

static const char *const node_states[] = { "free", "job-busy", "draining", "offline",
                                           "down" };

struct mig_count {
    char profile[16];
    int total, used;
};

static void mig_add (struct mig_count *mc, int *n, const char *profile, int used)
{
    int i;

    for (i = 0; i < *n; i++)
        if (strcmp (mc[i].profile, profile) == 0)
            break;
    if (i == *n) {
        if (*n >= GPU_MAX * GPU_MIG_MAX)
            return;
        snprintf (mc[i].profile, sizeof (mc[i].profile), "%s", profile);
        mc[i].total = mc[i].used = 0;
        (*n)++;
    }
    mc[i].total++;
    mc[i].used += used;
}

static void put_node_value (FILE *f, const char *metric, const char *node, long long v)
{
    fprintf (f, "%s{node=", metric);
    metrics_put_label (f, node);
    fprintf (f, "} %lld\n", v);
}

/* Per node: one series per metric and node, each family under one head. */
static void put_node_family (FILE *f, struct node **nodes, int n, const char *metric,
                             const char *help, int which)
{
    head (f, metric, "gauge", help);
    for (int i = 0; i < n; i++) {
        const struct node *nd = nodes[i];
        long long v = 0;
        if (nd->ncpus <= 0)
            continue;
        switch (which) {
        case 0: v = nd->ncpus; break;
        case 1: v = nd->ncpus_used; break;
        case 2: v = nd->mem; break;
        case 3: v = nd->mem_used; break;
        case 4:
            for (int g = 0; g < nd->ngpus; g++)
                v += nd->gpu[g].nmig == 0;
            break;
        default:
            for (int g = 0; g < nd->ngpus; g++)
                v += nd->gpu[g].nmig == 0 && nd->gpu[g].used_by != 0;
            break;
        }
        put_node_value (f, metric, nd->name, v);
    }
}

/* hpcq_node_mig_instances (used 0) or its _allocated twin (used 1). */
static void put_node_mig (FILE *f, struct node **nodes, int n, int used)
{
    const char *metric =
        used ? "hpcq_node_mig_instances_allocated" : "hpcq_node_mig_instances";

    head (f, metric, "gauge",
          used ? "MIG instances allocated, by profile." : "MIG instances, by profile.");
    for (int i = 0; i < n; i++) {
        struct mig_count mc[GPU_MAX * GPU_MIG_MAX];
        int nm = 0;
        for (int g = 0; g < nodes[i]->ngpus; g++)
            for (int k = 0; k < nodes[i]->gpu[g].nmig; k++)
                mig_add (mc, &nm, nodes[i]->gpu[g].mig[k].profile,
                         nodes[i]->gpu[g].mig[k].used_by != 0);
        for (int k = 0; k < nm; k++) {
            fprintf (f, "%s{node=", metric);
            metrics_put_label (f, nodes[i]->name);
            fprintf (f, ",profile=\"%s\"} %d\n", mc[k].profile,
                     used ? mc[k].used : mc[k].total);
        }
    }
}

/* Spot and on-demand nodes (nodeclass.h), by state. */
static void put_node_kinds (FILE *f, struct node **nodes, int n)
{
    int count[2][ARRAY_SIZE (node_states)] = { { 0 } };

    for (int i = 0; i < n; i++) {
        const char *st = node_admin_state (nodes[i]);
        if (nodes[i]->ncpus <= 0)
            continue;
        for (size_t s = 0; s < ARRAY_SIZE (node_states); s++)
            count[nodeclass_is_spot (nodes[i]) ? 1 : 0][s] +=
                strcmp (st, node_states[s]) == 0;
    }
    head (f, "hpcq_nodes_by_kind", "gauge",
          "Nodes by kind (spot: the provider may take them back; on_demand) "
          "and state.");
    for (int k = 0; k < 2; k++)
        for (size_t s = 0; s < ARRAY_SIZE (node_states); s++)
            fprintf (f, "hpcq_nodes_by_kind{node_kind=\"%s\",state=\"%s\"} %d\n",
                     k ? "spot" : "on_demand", node_states[s], count[k][s]);
}

static void put_nodes (struct metrics *m, FILE *f)
{
    static const struct {
        const char *node, *all, *help;
    } fam[] = {
        { "hpcq_node_cpus", "hpcq_cpus", "Cores." },
        { "hpcq_node_cpus_allocated", "hpcq_cpus_allocated",
          "Cores allocated to jobs." },
        { "hpcq_node_memory_bytes", "hpcq_memory_bytes", "Memory." },
        { "hpcq_node_memory_allocated_bytes", "hpcq_memory_allocated_bytes",
          "Memory allocated to jobs." },
        { "hpcq_node_gpus", "hpcq_gpus",
          "Whole GPUs (GPUs in MIG mode count as "
          "their instances)." },
        { "hpcq_node_gpus_allocated", "hpcq_gpus_allocated", "Whole GPUs allocated." },
    };
    int n, nmig = 0, count[ARRAY_SIZE (node_states)] = { 0 };
    struct node **nodes = nodes_all (m->srv->nodes, &n);
    struct mig_count *mig = xzalloc (GPU_MAX * GPU_MIG_MAX * sizeof (*mig));
    long long total[ARRAY_SIZE (fam)] = { 0 };

    head (f, "hpcq_node_state", "gauge", "1 for the state each node is in (pbsnodes).");
    for (int i = 0; i < n; i++) {
        const char *st = node_admin_state (nodes[i]);
        if (nodes[i]->ncpus <= 0)
            continue;
        for (size_t s = 0; s < ARRAY_SIZE (node_states); s++) {
            int is = strcmp (st, node_states[s]) == 0;
            count[s] += is;
            fputs ("hpcq_node_state{node=", f);
            metrics_put_label (f, nodes[i]->name);
            fprintf (f, ",state=\"%s\"} %d\n", node_states[s], is);
        }
    }
    head (f, "hpcq_nodes", "gauge", "Nodes by state.");
    for (size_t s = 0; s < ARRAY_SIZE (node_states); s++)
        fprintf (f, "hpcq_nodes{state=\"%s\"} %d\n", node_states[s], count[s]);
    put_node_kinds (f, nodes, n);
    for (size_t k = 0; k < ARRAY_SIZE (fam); k++)
        put_node_family (f, nodes, n, fam[k].node, fam[k].help, (int)k);
    /* In all: the nodes that are up (what can be given out now). */
    for (int i = 0; i < n; i++) {
        const struct node *nd = nodes[i];
        if (nd->ncpus <= 0 || nd->state != NODE_UP)
            continue;
        total[0] += nd->ncpus;
        total[1] += nd->ncpus_used;
        total[2] += nd->mem;
        total[3] += nd->mem_used;
        for (int g = 0; g < nd->ngpus; g++) {
            total[4] += nd->gpu[g].nmig == 0;
            total[5] += nd->gpu[g].nmig == 0 && nd->gpu[g].used_by != 0;
            for (int k = 0; k < nd->gpu[g].nmig; k++)
                mig_add (mig, &nmig, nd->gpu[g].mig[k].profile,
                         nd->gpu[g].mig[k].used_by != 0);
        }
    }
    for (size_t k = 0; k < ARRAY_SIZE (fam); k++) {
        char help[160];
        snprintf (help, sizeof (help), "%s In all, on the nodes that are up.",
                  fam[k].help);
        head (f, fam[k].all, "gauge", help);
        fprintf (f, "%s %lld\n", fam[k].all, total[k]);
    }
    put_node_mig (f, nodes, n, 0);
    put_node_mig (f, nodes, n, 1);
    head (f, "hpcq_mig_instances", "gauge", "MIG instances in all, by profile.");
    for (int k = 0; k < nmig; k++)
        fprintf (f, "hpcq_mig_instances{profile=\"%s\"} %d\n", mig[k].profile,
                 mig[k].total);
    head (f, "hpcq_mig_instances_allocated", "gauge",
          "MIG instances allocated in all, by profile.");
    for (int k = 0; k < nmig; k++)
        fprintf (f, "hpcq_mig_instances_allocated{profile=\"%s\"} %d\n", mig[k].profile,
                 mig[k].used);
    free (mig);
}

static void put_server (struct metrics *m, FILE *f)
{
    static const char *const classes[] = { "", "1xx", "2xx", "3xx", "4xx", "5xx" };

    head (f, "hpcq_scheduler_start_time_seconds", "gauge",
          "When the scheduler started (Unix time).");
    fprintf (f, "hpcq_scheduler_start_time_seconds %lld\n",
             (long long)(util_wall_secs ()
                         - (util_now_ms () - m->srv->started_ms) / 1000));
    head (f, "hpcq_db_commits_total", "counter", "Database transactions committed.");
    fprintf (f, "hpcq_db_commits_total %lld\n", (long long)m->srv->stat_commits);
    head (f, "hpcq_db_commit_duration_seconds", "histogram",
          "Time one commit (with its fsync) took.");
    hist_put (f, "hpcq_db_commit_duration_seconds", NULL, NULL, &m->commit);
    head (f, "hpcq_scheduling_pass_duration_seconds", "histogram",
          "Time one scheduling pass took.");
    hist_put (f, "hpcq_scheduling_pass_duration_seconds", NULL, NULL, &m->pass);
    head (f, "hpcq_http_responses_total", "counter", "HTTP answers by status class.");
    for (int c = 1; c < 6; c++)
        fprintf (f, "hpcq_http_responses_total{code=\"%s\"} %llu\n", classes[c],
                 (unsigned long long)m->http[c]);
    head (f, "hpcq_metrics_render_seconds", "gauge",
          "Time the previous answer to /metrics took to make.");
    fprintf (f, "hpcq_metrics_render_seconds %.6f\n", m->last_render);
}

int metrics_render (struct metrics *m, FILE *f, int per_user, int recount)
{
    int64_t t0 = util_now_us ();

    put_jobs (m, f, per_user, recount);
    put_queue_counters (m, f);
    put_interruptions (m, f);
    put_nodes (m, f);
    put_server (m, f);
    if (m->job_gpu && per_user)
        put_job_gpus (m, f);
    telemetry_render (m->srv->telemetry, f);
    m->last_render = (double)(util_now_us () - t0) / 1e6;
    return ferror (f) ? -1 : 0;
}

/* GET /metrics.  Per-user series name who runs what: for operators, or
 * for all when query_other_jobs is true. */
static int metrics_get (struct http_req *r, void *arg)
{
    struct metrics *m = arg;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&text, &len);
    const char *rc_arg = http_arg (r, "recount");
    int recount = rc_arg && strcmp (rc_arg, "1") == 0;
    int rc = f ? metrics_render (m, f, http_may_see (r, -1), recount) : -1;

    if (f && fclose (f) != 0)
        rc = -1;
    if (rc < 0) {
        free (text);
        return http_reply_error (r, 500, "cannot make the metrics");
    }
    return http_reply (r, 200, "text/plain; version=0.0.4; charset=utf-8", text, len);
}

int metrics_register (struct metrics *m, struct http *h)
{
    return h ? http_route (h, "/metrics", 0, metrics_get, m) : 0;
}
