/* fairshare.c - see fairshare.h */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/log.h"
#include "common/util.h"
#include "db/db_queue.h"
#include "scheduler/lifecycle_sub.h"
#include "scheduler/fairshare.h"
#include "scheduler/jobs.h"
#include "scheduler/policy/priority.h"
#include "scheduler/queue.h"

#define WEEK (7 * 86400)

struct fs_user {
    struct db_fairshare rec; /* usage as of rec.decayed_at */
    double now_usage;        /* during a rank: usage decayed to now */
    int active;              /* during a rank: owns a job being ranked */
    UT_hash_handle hh;       /* in fairshare.users, by rec.user */
};

struct fairshare {
    struct server *srv;
    int64_t halflife;
    double gpu_weight;
    struct priority_weights w;
    struct fs_user *users; /* every user with usage or jobs, in the order
                                 * they were met (iterations sum in it) */
};

static struct fs_user *fs_user (struct fairshare *fs, const char *user, int64_t now)
{
    struct fs_user *u;

    HASH_FIND_STR (fs->users, user, u);
    if (u)
        return u;
    u = xzalloc (sizeof (*u));
    snprintf (u->rec.user, sizeof (u->rec.user), "%s", user);
    u->rec.decayed_at = now;
    HASH_ADD_STR (fs->users, rec.user, u);
    return u;
}

static int load_one (const struct db_fairshare *f, void *arg)
{
    struct fairshare *fs = arg;

    fs_user (fs, f->user, f->decayed_at)->rec = *f;
    return 0;
}

/* A duration setting: HH:MM:SS or seconds, at least 0. */
static int get_duration (struct config *cfg, const char *key, int64_t dflt,
                         int64_t *out, struct hpcq_error *err)
{
    const char *s = config_get (cfg, key, NULL);

    *out = dflt;
    if (s && resource_parse_walltime (s, out, err) < 0)
        return errprintf (err, "%s: invalid duration '%s' (HH:MM:SS or seconds)", key,
                          s);
    return 0;
}

static int get_weight (struct config *cfg, const char *key, int64_t dflt, double *out,
                       struct hpcq_error *err)
{
    int64_t v;

    if (config_get_int (cfg, key, dflt, 0, 1000000000, &v, err) < 0)
        return -1;
    *out = (double)v;
    return 0;
}

static int fairshare_settings (struct fairshare *fs, struct config *cfg,
                               struct hpcq_error *err)
{
    if (get_duration (cfg, "fairshare_halflife", WEEK, &fs->halflife, err) < 0
        || get_duration (cfg, "priority_max_age", WEEK, &fs->w.max_age, err) < 0
        || get_weight (cfg, "fairshare_gpu_weight", 10, &fs->gpu_weight, err) < 0
        || get_weight (cfg, "priority_weight_queue", 1000, &fs->w.queue, err) < 0
        || get_weight (cfg, "priority_weight_job", 1, &fs->w.job, err) < 0
        || get_weight (cfg, "priority_weight_age", 100, &fs->w.age, err) < 0
        || get_weight (cfg, "priority_weight_fairshare", 1000, &fs->w.fairshare, err)
               < 0)
        return -1;
    return 0;
}

/* An attempt's usage is charged to its owner in the same transaction. */
static int fairshare_on_job (struct server *srv, struct job *job,
                             const struct lifecycle_event *ev, void *arg)
{
    return ev->point == LC_USAGE ? fairshare_charge (arg, job, ev->walltime) : 0;
}

static const struct lifecycle_sub fairshare_sub = { "fairshare", fairshare_on_job, 1 };

struct fairshare *fairshare_create (struct server *srv, struct hpcq_error *err)
{
    struct fairshare *fs = xzalloc (sizeof (*fs));

    fs->srv = srv;
    if (fairshare_settings (fs, srv->cfg, err) < 0)
        goto error;
    if (db_fairshare_foreach (srv->db, load_one, fs) < 0) {
        errprintf (err, "cannot load fair-share usage from the database");
        goto error;
    }
    if (lifecycle_subscribe (srv, &fairshare_sub, fs) < 0) {
        errprintf (err, "fairshare: %s", strerror (errno));
        goto error;
    }
    return fs;
error:
    fairshare_destroy (fs);
    return NULL;
}

void fairshare_destroy (struct fairshare *fs)
{
    struct fs_user *u, *tmp;

    if (!fs)
        return;
    HASH_ITER (hh, fs->users, u, tmp)
    {
        HASH_DEL (fs->users, u);
        free (u);
    }
    free (fs);
}

int fairshare_charge (struct fairshare *fs, const struct job *job, int64_t walltime)
{
    int64_t now = util_wall_secs ();
    struct fs_user *u = fs_user (fs, job->rec.owner, now);
    double cost = priority_run_usage (resource_total_ncpus (&job->spec.res),
                                      resource_total_ngpus (&job->spec.res), walltime,
                                      fs->gpu_weight);

    if (cost <= 0)
        return 0;
    u->rec.usage =
        priority_decay (u->rec.usage, now - u->rec.decayed_at, fs->halflife) + cost;
    u->rec.decayed_at = now;
    return db_fairshare_set (fs->srv->db, &u->rec);
}

void fairshare_rank (struct fairshare *fs, struct job **jobs, int n, int64_t now)
{
    double total = 0;
    int nusers = 0;
    struct fs_user *u = NULL;
    struct queue *q = NULL;

    /* Queued jobs come in runs of one owner and queue (arrays, scripted
     * submissions): the last lookups are kept, since both are by name. */
    for (u = fs->users; u; u = u->hh.next)
        u->active = 0;
    u = NULL;
    for (int i = 0; i < n; i++) {
        if (!u || strcmp (u->rec.user, jobs[i]->rec.owner) != 0)
            u = fs_user (fs, jobs[i]->rec.owner, now);
        u->active = 1;
    }
    for (u = fs->users; u; u = u->hh.next) {
        u->now_usage =
            priority_decay (u->rec.usage, now - u->rec.decayed_at, fs->halflife);
        total += u->now_usage;
        if (u->active || u->now_usage > 0)
            nusers++;
    }
    u = NULL;
    for (int i = 0; i < n; i++) {
        struct job *j = jobs[i];
        double f;
        if (!u || strcmp (u->rec.user, j->rec.owner) != 0)
            u = fs_user (fs, j->rec.owner, now);
        if (!q || strcmp (q->rec.name, j->rec.queue) != 0)
            q = queue_lookup (fs->srv->queues, j->rec.queue);
        f = priority_fairshare_factor (u->now_usage, total, nusers);

        j->prio = priority_compute (&fs->w, q ? q->rec.priority : 0, j->rec.priority,
                                    now - j->rec.ctime, f, &j->prio_f);
        /* A job a spot reclaim requeued was running a moment ago: it goes
         * first (reclaim.h). */
        if (j->restart_first)
            j->prio += PRIORITY_RESTART_FIRST;
        j->prio_f.usage = u->now_usage;
    }
}
