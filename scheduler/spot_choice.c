/* spot_choice.c - see spot_choice.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ckptspec.h"
#include "common/resource.h"
#include "common/util.h"
#include "scheduler/ckpt.h"
#include "scheduler/jobs.h"
#include "scheduler/nodeclass.h"
#include "scheduler/nodes.h"
#include "scheduler/policy/spotcost.h"
#include "scheduler/spot_choice.h"

#define RECENT_MAX 16 /* reclaims remembered per class */

/* A class's latest reclaims (wall seconds), a ring. */
struct recent {
    char cls[NODECLASS_NAME_MAX];
    int64_t t[RECENT_MAX];
    int n, next;
};

struct spot_choice {
    struct server *srv;
    int64_t max_reclaims;
    int64_t halflife;
    int64_t cost_guess;
    struct recent *recent;
    int nrecent;
    /* This pass: the cheapest spot node up (NULL: none) and on-demand
     * price (< 0: no on-demand node up). */
    const struct node *spot;
    double spot_price, spot_mtbi, spot_recent, ondemand_price;
    int64_t default_walltime;
};

struct spot_choice *spot_choice_create (struct server *srv, struct hpcq_error *err)
{
    struct spot_choice *sc = xzalloc (sizeof (*sc));

    sc->srv = srv;
    sc->default_walltime = -1;
    if (config_get_int (srv->cfg, "spot_max_reclaims", 0, 0, 1000000, &sc->max_reclaims,
                        err)
            < 0
        || config_get_int (srv->cfg, "spot_avoid_halflife", 3600, 1, 86400 * 365,
                           &sc->halflife, err)
               < 0
        || config_get_int (srv->cfg, "checkpoint_cost_guess", 60, 0, 86400,
                           &sc->cost_guess, err)
               < 0) {
        spot_choice_destroy (sc);
        return NULL;
    }
    return sc;
}

void spot_choice_destroy (struct spot_choice *sc)
{
    if (!sc)
        return;
    free (sc->recent);
    free (sc);
}

static struct recent *recent_of (struct spot_choice *sc, const char *cls, int add)
{
    for (int i = 0; i < sc->nrecent; i++)
        if (strcmp (sc->recent[i].cls, cls) == 0)
            return &sc->recent[i];
    if (!add)
        return NULL;
    sc->recent = xrealloc (sc->recent, (sc->nrecent + 1) * sizeof (*sc->recent));
    memset (&sc->recent[sc->nrecent], 0, sizeof (*sc->recent));
    snprintf (sc->recent[sc->nrecent].cls, NODECLASS_NAME_MAX, "%s", cls);
    return &sc->recent[sc->nrecent++];
}

static double recent_weight (struct spot_choice *sc, const struct node *n, int64_t now)
{
    char cls[NODECLASS_NAME_MAX];
    struct recent *r = recent_of (sc, nodeclass_of (n, cls, sizeof (cls)), 0);
    double age[RECENT_MAX];

    for (int i = 0; r && i < r->n; i++)
        age[i] = (double)(now - r->t[i]);
    return r ? spotcost_recent (age, r->n, (double)sc->halflife) : 0;
}

void spot_choice_reclaimed (struct spot_choice *sc, const struct node *n,
                            struct job *job)
{
    char cls[NODECLASS_NAME_MAX];
    struct recent *r;

    if (!sc)
        return;
    if (job) {
        job->spot_reclaims++;
        return;
    }
    r = recent_of (sc, nodeclass_of (n, cls, sizeof (cls)), 1);
    r->t[r->next] = util_wall_secs ();
    r->next = (r->next + 1) % RECENT_MAX;
    if (r->n < RECENT_MAX)
        r->n++;
}

void spot_choice_pass (struct spot_choice *sc, int64_t default_walltime)
{
    struct nodeclass *nc = sc->srv->nodeclass;
    struct node **nodes;
    int nn;

    sc->spot = NULL;
    sc->ondemand_price = -1;
    sc->default_walltime = default_walltime;
    nodes = nodes_all (sc->srv->nodes, &nn);
    for (int i = 0; i < nn; i++) {
        const struct node *n = nodes[i];
        double p;
        if (n->state != NODE_UP || n->offline || n->drain)
            continue;
        p = nodeclass_price (nc, n);
        if (!n->spot && (sc->ondemand_price < 0 || p < sc->ondemand_price))
            sc->ondemand_price = p;
        else if (n->spot && (!sc->spot || p < sc->spot_price)) {
            sc->spot = n;
            sc->spot_price = p;
        }
    }
    if (sc->spot) {
        sc->spot_mtbi = nodeclass_mtbi (nc, sc->spot);
        sc->spot_recent = recent_weight (sc, sc->spot, util_wall_secs ());
    }
}

/* Its checkpoint cost if it checkpoints, else -1. */
static double job_ckpt_cost (struct spot_choice *sc, const struct job *job)
{
    struct ckptspec cs;
    double c = ckpt_job_cost (job);

    ckpt_job_spec (job, &cs);
    if (cs.mode == CKPT_NEVER || (cs.mode == CKPT_UNSET && c < 0))
        return -1; /* -c u: as n until it has shown it checkpoints */
    return c >= 0 ? c : (double)sc->cost_guess;
}

void spot_choice_apply (struct spot_choice *sc, struct job *job)
{
    struct hpcq_resources *res = &job->spec.res;
    struct spotcost_in in = { 0 };
    struct spotcost_out out;
    int64_t w = res->walltime >= 0 ? res->walltime : sc->default_walltime;

    res->force_spot = -1;
    if (!sc->spot || sc->ondemand_price < 0 || w <= 0
        || sc->spot_price == sc->ondemand_price)
        return; /* nothing to choose between, or no basis */
    in.work = (double)w;
    in.mtbi = sc->spot_mtbi;
    in.ckpt_cost = job_ckpt_cost (sc, job);
    in.restart_cost = in.ckpt_cost > 0 ? in.ckpt_cost : 0;
    in.spot_price = sc->spot_price;
    in.ondemand_price = sc->ondemand_price;
    in.recent = sc->spot_recent;
    in.reclaims = job->spot_reclaims;
    in.max_reclaims = (int)sc->max_reclaims;
    in.want = res->spot_want;
    spotcost_decide (&in, &out);
    job->est_cost = out.spot ? out.spot_cost : out.ondemand_cost;
    if (out.hard && res->spot < 0)
        res->force_spot = out.spot; /* spot_max_reclaims */
    if (res->prefer_spot >= 0 && !out.hard)
        snprintf (job->spot_why, sizeof (job->spot_why),
                  "%.150s (its queue prefers %s)", out.why,
                  res->prefer_spot ? "spot" : "on-demand");
    else {
        snprintf (job->spot_why, sizeof (job->spot_why), "%s", out.why);
        if (!out.hard)
            res->prefer_spot = out.spot;
    }
    /* A waiting job's comment says why, until the pass says otherwise. */
    if (!job->rec.comment || !job->rec.comment[0]
        || !strncmp (job->rec.comment, "spot", 4)
        || !strncmp (job->rec.comment, "on-demand", 9))
        job_set_comment (job, "%s", job->spot_why);
}

void spot_choice_now (struct spot_choice *sc, struct job *job)
{
    spot_choice_pass (sc, sc->default_walltime);
    spot_choice_apply (sc, job);
}

void spot_choice_attr_json (const struct job *job, json_t *est)
{
    char cost[32];

    if (!job->spot_why[0])
        return;
    snprintf (cost, sizeof (cost), "%.6f", job->est_cost);
    json_object_set_new (est, "spot", json_string (job->spot_why));
    json_object_set_new (est, "cost", json_string (cost));
}
