/* power.c - see power.h
 *
 * Slurm's power saving (https://slurm.schedmd.com/power_save.html) is the
 * model: ResumeProgram, SuspendProgram, SuspendTime, ResumeTimeout,
 * SuspendTimeout, nodes in a CLOUD state.  Slurm hands its programs one
 * host list expression; ours get one node name per argument (a script
 * loops over "$@" without a host list parser), and the host list in
 * HPCQ_NODELIST.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/child.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/util.h"
#include "db/db_job.h"
#include "db/db_node.h"
#include "scheduler/jobs.h"
#include "scheduler/node_state.h"
#include "scheduler/nodes.h"
#include "scheduler/policy/place.h"
#include "scheduler/policy/policy.h"
#include "scheduler/power.h"

#define POWER_TICK_MS 500
#define POWER_MAX_ARGS 16 /* words of a program's command line */
#define POWER_MAX_CLOUD 100000
#define POWER_PLAN_JOBS 1000 /* waiting jobs the plan places, at most */

enum { RUN_RESUME, RUN_SUSPEND };

/* A resume or suspend program running for some nodes. */
struct power_run {
    struct power *p;
    struct child *c;
    int kind;
    int n;
    struct node **nodes;
    LIST_ENTRY (power_run) link;
};

struct power {
    struct server *srv;
    const char *cloud_nodes;        /* the setting (the config's) */
    char *resume_cmd, *suspend_cmd; /* the settings, split into argv below */
    char *resume_argv[POWER_MAX_ARGS + 1], *suspend_argv[POWER_MAX_ARGS + 1];
    int nresume_args, nsuspend_args;
    int64_t suspend_time_ms, suspend_timeout_ms, resume_timeout_ms;
    int max_resuming;
    struct node **cloud; /* the cloud nodes (the nodes module's) */
    int ncloud;
    char **names; /* their names, while the setting is checked */
    int nnames;
    struct loop_timer *tick;
    LIST_HEAD (, power_run) runs;
};

double power_node_price (const struct node *n)
{
    const char *p = n->labels;
    double v;

    while ((p = strstr (p, "price_per_hour="))) {
        if (p == n->labels || p[-1] == ',') {
            char buf[32];
            p += strlen ("price_per_hour=");
            snprintf (buf, sizeof (buf), "%.*s", (int)strcspn (p, ","), p);
            return util_parse_double (buf, 0, 1e12, &v) == 0 ? v : 0;
        }
        p++;
    }
    return 0;
}

/* A program setting: words split on blanks, the first an absolute path to
 * an executable file.  0 (nothing set: argv[0] NULL), or -1 with err. */
static int program_parse (const char *key, const char *value, char **copy, char **argv,
                          int *nargs, struct hpcq_error *err)
{
    struct stat st;
    char *save = NULL;

    *nargs = 0;
    argv[0] = NULL;
    if (!value)
        return 0;
    *copy = xstrdup (value);
    for (char *w = strtok_r (*copy, " \t", &save); w;
         w = strtok_r (NULL, " \t", &save)) {
        if (*nargs == POWER_MAX_ARGS)
            return errprintf (err, "%s '%s': more than %d words", key, value,
                              POWER_MAX_ARGS);
        argv[(*nargs)++] = w;
    }
    argv[*nargs] = NULL;
    if (*nargs == 0)
        return errprintf (err, "%s is empty", key);
    if (argv[0][0] != '/')
        return errprintf (err, "%s '%s': not an absolute path", key, argv[0]);
    if (stat (argv[0], &st) < 0)
        return errprintf (err, "%s '%s': %s", key, argv[0], strerror (errno));
    if (!S_ISREG (st.st_mode) || access (argv[0], X_OK) < 0)
        return errprintf (err, "%s '%s': not an executable file", key, argv[0]);
    return 0;
}

/* --- cloud_nodes --- */

struct group {
    struct power *p;
    int ncpus, ngpus;
    int64_t mem;
    char gpu_model[64];
    char labels[256];
};

static int group_word (struct group *g, char *w, struct hpcq_error *err)
{
    char *v = strchr (w, '=');
    int64_t n;

    if (!v)
        return errprintf (err, "cloud_nodes: '%s' is not KEY=VALUE", w);
    *v++ = '\0';
    if (strcmp (w, "ncpus") == 0) {
        if (util_parse_i64 (v, 1, 1 << 20, &n) < 0)
            return errprintf (err, "cloud_nodes: invalid ncpus '%s'", v);
        g->ncpus = (int)n;
    } else if (strcmp (w, "ngpus") == 0) {
        if (util_parse_i64 (v, 0, GPU_MAX, &n) < 0)
            return errprintf (err, "cloud_nodes: invalid ngpus '%s' (0 to %d)", v,
                              GPU_MAX);
        g->ngpus = (int)n;
    } else if (strcmp (w, "mem") == 0) {
        struct hpcq_error e;
        if (resource_parse_size (v, &g->mem, &e) < 0)
            return errprintf (err, "cloud_nodes: invalid mem '%s'", v);
    } else if (strcmp (w, "gpu_model") == 0)
        snprintf (g->gpu_model, sizeof (g->gpu_model), "%s", v);
    else if (strcmp (w, "labels") == 0 || strcmp (w, "price_per_hour") == 0) {
        size_t len = strlen (g->labels);
        double price;
        if (w[0] == 'p' && util_parse_double (v, 0, 1e12, &price) < 0)
            return errprintf (err, "cloud_nodes: invalid price_per_hour '%s'", v);
        snprintf (g->labels + len, sizeof (g->labels) - len, "%s%s%s%s", len ? "," : "",
                  w[0] == 'p' ? "price_per_hour=" : "", v, "");
    } else
        return errprintf (err,
                          "cloud_nodes: unknown key '%s' (ncpus, mem, ngpus, "
                          "gpu_model, labels, price_per_hour)",
                          w);
    return 0;
}

/* A name of a group, when the setting is checked: not too long, not
 * given twice. */
static int check_name (const char *name, void *arg)
{
    struct group *g = arg;
    struct power *p = g->p;

    if (strlen (name) >= sizeof (((struct node *)0)->name)
        || p->nnames == POWER_MAX_CLOUD)
        return -1;
    for (int i = 0; i < p->nnames; i++)
        if (strcmp (p->names[i], name) == 0)
            return -1;
    p->names = xrealloc (p->names, (p->nnames + 1) * sizeof (*p->names));
    p->names[p->nnames++] = xstrdup (name);
    return 0;
}

/* One declared node: a record with the group's size, a cloud node. */
static int declare (const char *name, void *arg)
{
    struct group *g = arg;
    struct power *p = g->p;
    struct node *n;

    n = nodes_get (p->srv->nodes, name);
    n->cloud = 1;
    n->ncpus = g->ncpus;
    n->mem = g->mem;
    snprintf (n->labels, sizeof (n->labels), "%s", g->labels);
    n->ngpus = g->ngpus;
    for (int i = 0; i < g->ngpus; i++) {
        memset (&n->gpu[i], 0, sizeof (n->gpu[i]));
        n->gpu[i].index = i;
        snprintf (n->gpu[i].model, sizeof (n->gpu[i].model), "%s", g->gpu_model);
    }
    place_node_sync (n);
    p->cloud = xrealloc (p->cloud, (p->ncloud + 1) * sizeof (*p->cloud));
    p->cloud[p->ncloud++] = n;
    return 0;
}

/* Each group of the setting: cb for each of its names.  check is 1
 * while the setting is checked (the names are collected, not declared). */
static int cloud_parse (struct power *p, const char *value, int check,
                        struct hpcq_error *err)
{
    char *copy = xstrdup (value), *save = NULL;
    int rc = 0;

    for (char *grp = strtok_r (copy, ";", &save); grp && rc == 0;
         grp = strtok_r (NULL, ";", &save)) {
        struct group g = { .p = p };
        char *wsave = NULL, *list = strtok_r (grp, " \t", &wsave), *w;
        if (!list)
            continue;
        while (rc == 0 && (w = strtok_r (NULL, " \t", &wsave)))
            rc = group_word (&g, w, err);
        if (rc == 0 && g.ncpus == 0)
            rc = errprintf (err, "cloud_nodes: '%s' has no ncpus=N", list);
        if (rc == 0
            && hostlist_expand (list, POWER_MAX_CLOUD, check ? check_name : declare, &g)
                   < 0)
            rc = errprintf (err,
                            "cloud_nodes: bad host list '%s' (malformed, a name "
                            "given twice or too long)",
                            list);
    }
    free (copy);
    return rc;
}

static int settings (struct power *p, struct hpcq_error *err)
{
    struct config *cfg = p->srv->cfg;
    const char *cloud = config_get (cfg, "cloud_nodes", NULL);
    int64_t st, sto, rto, maxr;

    if (program_parse ("resume_program", config_get (cfg, "resume_program", NULL),
                       &p->resume_cmd, p->resume_argv, &p->nresume_args, err)
            < 0
        || program_parse ("suspend_program", config_get (cfg, "suspend_program", NULL),
                          &p->suspend_cmd, p->suspend_argv, &p->nsuspend_args, err)
               < 0
        || config_get_int (cfg, "suspend_time", 600, 1, 86400 * 365, &st, err) < 0
        || config_get_int (cfg, "suspend_timeout", 30, 1, 86400, &sto, err) < 0
        || config_get_int (cfg, "resume_timeout", 300, 1, 86400, &rto, err) < 0
        || config_get_int (cfg, "max_nodes_resuming", 100, 1, POWER_MAX_CLOUD, &maxr,
                           err)
               < 0)
        return -1;
    p->suspend_time_ms = st * 1000;
    p->suspend_timeout_ms = sto * 1000;
    p->resume_timeout_ms = rto * 1000;
    p->max_resuming = (int)maxr;
    if (!cloud)
        return 0;
    if (!p->resume_argv[0] || !p->suspend_argv[0])
        return errprintf (err, "cloud_nodes needs resume_program and suspend_program");
    p->cloud_nodes = cloud;
    return cloud_parse (p, cloud, 1, err);
}

/* The names collected while checking. */
static void names_release (struct power *p)
{
    for (int i = 0; i < p->nnames; i++)
        free (p->names[i]);
    free (p->names);
    p->names = NULL;
    p->nnames = 0;
}

/* --- events --- */

static void power_event (struct power *p, const char *type, const char *detail)
{
    if (db_event_add (p->srv->db, 0, util_wall_secs (), type, "scheduler", detail) < 0)
        log_error ("record %s", type);
}

/* The names of nodes[0..n) as a host list, into buf. */
static const char *names_text (struct node **nodes, int n, char *buf, size_t len)
{
    const char **names = xzalloc ((n > 0 ? n : 1) * sizeof (*names));

    for (int i = 0; i < n; i++)
        names[i] = nodes[i]->name;
    hostlist_format (names, n, buf, len);
    free (names);
    return buf;
}

/* A cloud node failed to resume or suspend: down, with why. */
static void power_fail (struct power *p, struct node *n, const char *what,
                        const char *why)
{
    char detail[512];

    snprintf (detail, sizeof (detail), "%s: %s", n->name, why);
    log_msg (LOG_WARNING, "node %s: %s failed: %s", n->name, what, why);
    n->power = strcmp (what, "resume") == 0 ? NODE_POWER_OFF : NODE_POWER_ON;
    n->drain &= ~NODE_DRAIN_POWER;
    (void)nodes_set_state (p->srv, n, NODE_DOWN, NODE_EV_POWER_FAILED, why);
    snprintf (n->comment, sizeof (n->comment), "%s failed: %s", what, why);
    power_event (p,
                 strcmp (what, "resume") == 0 ? "node_resume_failed"
                                              : "node_suspend_failed",
                 detail);
}

/* --- running the programs --- */

static void run_free (struct power_run *r)
{
    LIST_REMOVE (r, link);
    free (r->nodes);
    free (r);
}

static void run_done (struct child *c, int status, int timed_out, const char *last,
                      void *arg)
{
    struct power_run *r = arg;
    struct power *p = r->p;
    enum node_power want =
        r->kind == RUN_RESUME ? NODE_POWER_RESUMING : NODE_POWER_SUSPENDING;
    const char *what = r->kind == RUN_RESUME ? "resume" : "suspend";
    char why[700], st[64];

    if (timed_out)
        snprintf (why, sizeof (why),
                  "%s_program did not finish within %s_timeout (%lld s)", what, what,
                  (long long)((r->kind == RUN_RESUME ? p->resume_timeout_ms
                                                     : p->suspend_timeout_ms)
                              / 1000));
    else
        snprintf (why, sizeof (why), "%s_program %s%s%s", what,
                  child_status_text (status, st, sizeof (st)), last[0] ? ": " : "",
                  last);
    for (int i = 0; i < r->n; i++) {
        struct node *n = r->nodes[i];
        if (n->power != want)
            continue; /* already up (a fast hello), or given up on */
        if (timed_out || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
            power_fail (p, n, what, why);
        else if (r->kind == RUN_SUSPEND) {
            n->power = NODE_POWER_OFF;
            n->drain &= ~NODE_DRAIN_POWER;
            (void)nodes_set_state (p->srv, n, NODE_UNKNOWN, NODE_EV_POWERED_OFF, NULL);
            n->power_since_ms = util_now_ms ();
            n->idle_since_ms = 0;
            if (n->conn) {
                conn_set_aux (n->conn, NULL);
                conn_close (n->conn);
                node_set_link (n, NULL);
            }
            log_msg (LOG_INFO, "node %s suspended", n->name);
            power_event (p, "node_suspended", n->name);
        }
    }
    run_free (r);
    server_request_pass (p->srv);
}

/* Run kind's program for nodes[0..n) (taken).  0, or -1 after failing
 * them (it could not start). */
static int run_start (struct power *p, int kind, struct node **nodes, int n)
{
    char **argv = kind == RUN_RESUME ? p->resume_argv : p->suspend_argv;
    int nargs = kind == RUN_RESUME ? p->nresume_args : p->nsuspend_args;
    char **av = xzalloc ((nargs + n + 1) * sizeof (*av));
    struct power_run *r = xzalloc (sizeof (*r));
    char list[4096], envv[4200], *env[] = { envv, NULL };
    struct hpcq_error err;

    for (int i = 0; i < nargs; i++)
        av[i] = argv[i];
    for (int i = 0; i < n; i++)
        av[nargs + i] = nodes[i]->name;
    snprintf (envv, sizeof (envv), "HPCQ_NODELIST=%s",
              names_text (nodes, n, list, sizeof (list)));
    r->p = p;
    r->kind = kind;
    r->n = n;
    r->nodes = nodes;
    LIST_INSERT_HEAD (&p->runs, r, link);
    r->c = child_run (p->srv->loop, av, env,
                      kind == RUN_RESUME ? p->resume_timeout_ms : p->suspend_timeout_ms,
                      run_done, r, &err);
    free (av);
    if (!r->c) {
        for (int i = 0; i < n; i++)
            power_fail (p, nodes[i], kind == RUN_RESUME ? "resume" : "suspend",
                        err.text);
        run_free (r);
        return -1;
    }
    return 0;
}

static void resume (struct power *p, struct node **nodes, int n, const char *why)
{
    char list[4096], detail[4200];
    int64_t now = util_now_ms ();

    names_text (nodes, n, list, sizeof (list));
    snprintf (detail, sizeof (detail), "%s (%s)", list, why);
    log_msg (LOG_INFO, "resuming %d node%s: %s", n, n == 1 ? "" : "s", detail);
    for (int i = 0; i < n; i++) {
        nodes[i]->power = NODE_POWER_RESUMING;
        nodes[i]->power_since_ms = now;
        nodes[i]->comment[0] = '\0';
    }
    power_event (p, "node_resume", detail);
    (void)run_start (p, RUN_RESUME, nodes, n);
}

static void suspend (struct power *p, struct node **nodes, int n)
{
    char list[4096];
    int64_t now = util_now_ms ();

    names_text (nodes, n, list, sizeof (list));
    log_msg (LOG_INFO, "suspending %d idle node%s: %s", n, n == 1 ? "" : "s", list);
    for (int i = 0; i < n; i++) {
        nodes[i]->power = NODE_POWER_SUSPENDING;
        nodes[i]->power_since_ms = now;
        nodes[i]->drain |= NODE_DRAIN_POWER;
    }
    power_event (p, "node_suspend", list);
    (void)run_start (p, RUN_SUSPEND, nodes, n);
}

/* --- the plan --- */

/* A copy of cloud node n as if up and empty, for the plan to place on. */
static void shadow_of (const struct node *n, struct node *s)
{
    *s = *n;
    s->state = NODE_UP;
    s->reachable = 1;
    s->drain = 0;
    s->conn = NULL;
    s->ncpus_used = 0;
    s->mem_used = 0;
    s->njobs = 0;
    s->excl_by = 0;
    for (int g = 0; g < s->ngpus; g++) {
        s->gpu[g].used_by = 0;
        for (int m = 0; m < s->gpu[g].nmig; m++)
            s->gpu[g].mig[m].used_by = 0;
    }
    place_node_sync (s);
}

/* A powered-off node the plan may resume: not down from a failure, not
 * out of service. */
static int resumable (const struct node *n)
{
    return n->cloud && n->power == NODE_POWER_OFF && n->state != NODE_DOWN
           && !n->offline;
}

struct plan {
    struct node **view;   /* every node, or its shadow */
    struct node *shadow;  /* one per cloud node */
    struct node_use *use; /* what the plan supposes taken */
    int *cand, *want;
    double *price; /* per view index: resumable nodes' price, else -1 */
    int nn;
};

static void plan_release (struct plan *pl)
{
    free (pl->view);
    free (pl->shadow);
    free (pl->use);
    free (pl->cand);
    free (pl->want);
    free (pl->price);
}

static void plan_init (struct power *p, struct plan *pl)
{
    struct node **all = nodes_all (p->srv->nodes, &pl->nn);
    int k = 0;

    pl->view = xzalloc ((pl->nn + 1) * sizeof (*pl->view));
    pl->shadow = xzalloc ((p->ncloud + 1) * sizeof (*pl->shadow));
    pl->use = xzalloc ((pl->nn + 1) * sizeof (*pl->use));
    pl->cand = xzalloc ((pl->nn + 1) * sizeof (*pl->cand));
    pl->want = xzalloc ((pl->nn + 1) * sizeof (*pl->want));
    pl->price = xzalloc ((pl->nn + 1) * sizeof (*pl->price));
    for (int i = 0; i < pl->nn; i++) {
        struct node *n = all[i];
        pl->price[i] = -1;
        if (n->cloud && (resumable (n) || n->power == NODE_POWER_RESUMING)) {
            shadow_of (n, &pl->shadow[k]);
            pl->view[i] = &pl->shadow[k++];
            if (resumable (n))
                pl->price[i] = power_node_price (n);
        } else
            pl->view[i] = n;
        pl->view[i]->pidx = i;
        node_use_of (pl->view[i], &pl->use[i]);
    }
}

/* The nodes the plan may use at price tier max_price (resumable nodes up
 * to that price; < 0: none of them) into pl->cand.  Their number. */
static int plan_cands (struct plan *pl, double max_price)
{
    int k = 0;

    for (int i = 0; i < pl->nn; i++)
        if (pl->price[i] < 0 || (max_price >= 0 && pl->price[i] <= max_price))
            pl->cand[k++] = i;
    return k;
}

static int cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The distinct prices of the resumable nodes, cheapest first, after a
 * first tier of -1 (none of them), into tiers (room for nn + 1).  Their
 * number. */
static int plan_tiers (const struct plan *pl, double *tiers)
{
    double *v = tiers + 1;
    int n = 0, k = 1;

    for (int i = 0; i < pl->nn; i++)
        if (pl->price[i] >= 0)
            v[n++] = pl->price[i];
    qsort (v, n, sizeof (*v), cmp_double);
    tiers[0] = -1;
    /* In place: tiers[k] is never after v[i]. */
    for (int i = 0; i < n; i++)
        if (k == 1 || v[i] != tiers[k - 1])
            tiers[k++] = v[i];
    return k;
}

/* Place job on the plan's nodes, the cheapest tier first; its allocation
 * goes into the plan's usage and its resumable nodes are wanted. */
static void plan_job (struct plan *pl, const double *tiers, int ntiers, struct job *job)
{
    struct alloc *a = NULL;

    for (int t = 0; t < ntiers && !a; t++) {
        int nc = plan_cands (pl, tiers[t]);
        a = place_alloc_among (pl->view, pl->cand, nc, pl->use, NULL, pl->nn,
                               &job->spec.res, job->node_labels);
    }
    if (!a)
        return;
    for (int s = 0; s < a->n; s++) {
        int i = a->slot[s].node->pidx;
        node_use_apply (&pl->use[i], &a->slot[s], job->rec.seq, 1);
        if (pl->price[i] >= 0)
            pl->want[i] = 1;
    }
    free (a);
}

static int resuming_count (const struct power *p)
{
    int k = 0;

    for (int i = 0; i < p->ncloud; i++)
        k += p->cloud[i]->power == NODE_POWER_RESUMING;
    return k;
}

static void power_plan (struct power *p)
{
    struct job **jobs, *j;
    struct plan pl = { 0 };
    struct node **all, **go;
    double *tiers;
    int nj = 0, ngo = 0, room = p->max_resuming - resuming_count (p), ntiers;
    char why[256];

    if (room <= 0 || jobs_queued_count (p->srv->jobs) == 0)
        return;
    jobs = xzalloc (jobs_queued_count (p->srv->jobs) * sizeof (*jobs));
    TAILQ_FOREACH (j, jobs_queued (p->srv->jobs), q_link)
    jobs[nj++] = j;
    policy_sort_priority (jobs, nj);
    plan_init (p, &pl);
    tiers = xzalloc ((pl.nn + 2) * sizeof (*tiers));
    ntiers = plan_tiers (&pl, tiers);
    for (int i = 0; i < nj && i < POWER_PLAN_JOBS; i++)
        plan_job (&pl, tiers, ntiers, jobs[i]);
    all = nodes_all (p->srv->nodes, &pl.nn);
    go = xzalloc ((pl.nn + 1) * sizeof (*go));
    for (int i = 0; i < pl.nn && ngo < room; i++)
        if (pl.want[i])
            go[ngo++] = all[i];
    snprintf (why, sizeof (why), "%d waiting job%s, first %s", nj, nj == 1 ? "" : "s",
              nj ? jobs[0]->id : "-");
    if (ngo > 0)
        resume (p, go, ngo, why);
    else
        free (go);
    free (tiers);
    plan_release (&pl);
    free (jobs);
}

/* --- the timer --- */

static void power_tick (struct loop *l, void *arg)
{
    struct power *p = arg;
    int64_t now = util_now_ms ();
    struct node **idle = xzalloc ((p->ncloud + 1) * sizeof (*idle));
    int nidle = 0;

    for (int i = 0; i < p->ncloud; i++) {
        struct node *n = p->cloud[i];
        if (n->power == NODE_POWER_RESUMING
            && now - n->power_since_ms > p->resume_timeout_ms) {
            char why[128];
            snprintf (why, sizeof (why),
                      "its worker did not register within "
                      "resume_timeout (%lld s)",
                      (long long)(p->resume_timeout_ms / 1000));
            power_fail (p, n, "resume", why);
        }
        if (n->power != NODE_POWER_ON || n->state != NODE_UP)
            continue;
        if (n->njobs > 0 || n->offline || n->drain)
            n->idle_since_ms = 0;
        else if (!n->idle_since_ms)
            n->idle_since_ms = now;
        else if (now - n->idle_since_ms >= p->suspend_time_ms)
            idle[nidle++] = n;
    }
    if (nidle > 0)
        suspend (p, idle, nidle);
    else
        free (idle);
    power_plan (p);
}

/* --- the module --- */

struct power *power_create (struct server *srv, struct hpcq_error *err)
{
    struct power *p = xzalloc (sizeof (*p));

    p->srv = srv;
    LIST_INIT (&p->runs);
    if (settings (p, err) < 0) {
        names_release (p);
        power_destroy (p);
        return NULL;
    }
    names_release (p);
    return p;
}

int power_start (struct power *p, struct hpcq_error *err)
{
    struct server *srv = p->srv;

    if (p->cloud_nodes && cloud_parse (p, p->cloud_nodes, 0, err) < 0)
        return -1;
    for (int i = 0; i < p->ncloud; i++) {
        struct node *n = p->cloud[i];
        /* One that runs jobs (the database says) is on: its worker is
         * expected back as any other's. */
        n->power = n->njobs > 0 ? NODE_POWER_ON : NODE_POWER_OFF;
        n->power_since_ms = util_now_ms ();
    }
    if (p->ncloud > 0) {
        log_msg (LOG_INFO,
                 "%d cloud node%s, powered off until jobs need them; "
                 "suspend_time %lld s",
                 p->ncloud, p->ncloud == 1 ? "" : "s",
                 (long long)(p->suspend_time_ms / 1000));
        if (!(p->tick = loop_timer_add (srv->loop, POWER_TICK_MS, POWER_TICK_MS,
                                        power_tick, p)))
            return errprintf (err, "event loop: %s", strerror (errno));
    }
    return 0;
}

void power_destroy (struct power *p)
{
    struct power_run *r;

    if (!p)
        return;
    loop_timer_remove (p->tick);
    while ((r = LIST_FIRST (&p->runs))) {
        child_destroy (r->c);
        run_free (r);
    }
    free (p->cloud);
    free (p->resume_cmd);
    free (p->suspend_cmd);
    free (p);
}

void power_node_hello (struct power *p, struct node *n)
{
    if (!n->cloud)
        return;
    if (n->power == NODE_POWER_RESUMING) {
        char detail[128];
        snprintf (detail, sizeof (detail), "%s after %.3f s", n->name,
                  (util_now_ms () - n->power_since_ms) / 1000.0);
        log_msg (LOG_INFO, "node %s resumed (%s)", n->name, detail);
        power_event (p, "node_resumed", detail);
    }
    if (n->power != NODE_POWER_SUSPENDING) {
        n->power = NODE_POWER_ON;
        n->comment[0] = '\0';
        n->idle_since_ms = util_now_ms ();
    }
}

int power_node_clear (struct power *p, struct node *n)
{
    if (!n->cloud || n->state != NODE_DOWN || n->conn)
        return 0;
    n->power = NODE_POWER_OFF;
    (void)nodes_set_state (p->srv, n, NODE_UNKNOWN, NODE_EV_CLOUD_CLEARED, NULL);
    n->drain &= ~NODE_DRAIN_POWER;
    n->comment[0] = '\0';
    log_msg (LOG_INFO, "node %s is a cloud node again", n->name);
    return 1;
}
