/* nodeclass.c - see nodeclass.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/resource.h"
#include "common/util.h"
#include "db/db_ckpt.h"
#include "scheduler/policy/cadence.h"
#include "scheduler/nodeclass.h"
#include "scheduler/nodes.h"

/* Up time counted so far is added to the database this often (it is
 * counted from the changes of state, not sampled: a crash loses at most
 * this much). */
#define EXPOSURE_TICK_MS 60000

#define DEFAULT_MTBI_PRIOR (720 * 3600) /* 30 days */

struct class_stat {
    char name[NODECLASS_NAME_MAX];
    double exposure; /* node-seconds up, credited */
    long interruptions;
    /* The nodes up now, and the sum of their up_credited_ms: their up
     * time not yet credited is nup * now - credited_sum, in O(1). */
    int nup;
    int64_t credited_sum_ms;
};

struct nodeclass {
    struct server *srv;
    struct class_stat *v;
    int n;
    struct loop_timer *tick;
};

int nodeclass_label (const char *labels, const char *key, char *buf, size_t len)
{
    size_t klen = strlen (key);

    for (const char *p = labels ? labels : ""; *p;) {
        size_t n = strcspn (p, ",");
        if (n >= klen && strncmp (p, key, klen) == 0 && (n == klen || p[klen] == '=')) {
            const char *v = n == klen ? p + n : p + klen + 1;
            snprintf (buf, len, "%.*s", (int)(p + n - v), v);
            return 1;
        }
        p += n + (p[n] == ',');
    }
    if (len)
        buf[0] = '\0';
    return 0;
}

const char *nodeclass_of (const struct node *n, char *buf, size_t len)
{
    if (!nodeclass_label (n->labels, "class", buf, len) || !buf[0])
        snprintf (buf, len, "default");
    return buf;
}

int nodeclass_is_spot (const struct node *n)
{
    char v[16];

    if (!nodeclass_label (n->labels, "spot", v, sizeof (v)))
        return 0;
    return !v[0] || !strcasecmp (v, "true") || !strcasecmp (v, "yes")
           || !strcmp (v, "1");
}

static struct class_stat *class_get (struct nodeclass *nc, const char *name)
{
    struct class_stat *c;

    for (int i = 0; i < nc->n; i++)
        if (strcmp (nc->v[i].name, name) == 0)
            return &nc->v[i];
    nc->v = xrealloc (nc->v, (nc->n + 1) * sizeof (*nc->v));
    c = &nc->v[nc->n++];
    memset (c, 0, sizeof (*c));
    snprintf (c->name, sizeof (c->name), "%s", name);
    return c;
}

/* A number from the config: key.CLASS, else key, else dflt.  A bad value
 * was refused at start (nodeclass_check), so it is not one here. */
static double class_setting (struct nodeclass *nc, const char *key, const char *cls,
                             double dflt, int duration)
{
    char k[128];
    const char *s;
    int64_t secs;
    double v;

    snprintf (k, sizeof (k), "%s.%s", key, cls);
    if (!(s = config_get (nc->srv->cfg, k, NULL)))
        s = config_get (nc->srv->cfg, key, NULL);
    if (!s)
        return dflt;
    if (duration)
        return resource_parse_walltime (s, &secs, NULL) == 0 ? (double)secs : dflt;
    return util_parse_double (s, 0, 1e12, &v) == 0 ? v : dflt;
}

double nodeclass_price (struct nodeclass *nc, const struct node *n)
{
    char cls[NODECLASS_NAME_MAX], v[32];
    double p;

    if (nodeclass_label (n->labels, "price_per_hour", v, sizeof (v))
        && util_parse_double (v, 0, 1e12, &p) == 0)
        return p;
    return class_setting (nc, "price_per_hour", nodeclass_of (n, cls, sizeof (cls)), 0,
                          0);
}

double nodeclass_ondemand_price (struct nodeclass *nc, const struct node *n)
{
    char cls[NODECLASS_NAME_MAX], v[32];
    double own = nodeclass_price (nc, n), p;

    if (!nodeclass_is_spot (n))
        return own;
    if (nodeclass_label (n->labels, "ondemand_price_per_hour", v, sizeof (v))
        && util_parse_double (v, 0, 1e12, &p) == 0)
        return p;
    return class_setting (nc, "ondemand_price_per_hour",
                          nodeclass_of (n, cls, sizeof (cls)), own, 0);
}

static int class_index (struct nodeclass *nc, const struct node *n)
{
    char cls[NODECLASS_NAME_MAX];

    return (int)(class_get (nc, nodeclass_of (n, cls, sizeof (cls))) - nc->v);
}

/* Up node-seconds of class c, to now. */
static double class_up (const struct class_stat *c, int64_t now)
{
    return c->exposure + (c->nup * now - c->credited_sum_ms) / 1000.0;
}

double nodeclass_mtbi (struct nodeclass *nc, const struct node *n)
{
    char cls[NODECLASS_NAME_MAX];
    struct class_stat *c = class_get (nc, nodeclass_of (n, cls, sizeof (cls)));
    double prior = class_setting (nc, "mtbi_prior", cls, DEFAULT_MTBI_PRIOR, 1);

    return cadence_mtbi (prior, class_up (c, util_now_ms ()), c->interruptions);
}

/* What n was up since it was last credited goes to its class. */
static void credit (struct nodeclass *nc, struct node *n, int64_t now)
{
    struct class_stat *c = &nc->v[n->up_class];
    double secs = (now - n->up_credited_ms) / 1000.0;

    c->exposure += secs;
    c->credited_sum_ms += now - n->up_credited_ms;
    n->up_credited_ms = now;
    if (secs > 0 && db_class_exposure_add (nc->srv->db, c->name, secs) < 0)
        log_error ("node class %s: record up time", c->name);
}

void nodeclass_state (struct nodeclass *nc, struct node *n, enum node_state to)
{
    int64_t now = util_now_ms ();
    struct class_stat *c;

    if (!nc || (n->state == NODE_UP) == (to == NODE_UP))
        return;
    if (to == NODE_UP) {
        n->up_class = class_index (nc, n);
        n->up_credited_ms = now;
        c = &nc->v[n->up_class];
        c->nup++;
        c->credited_sum_ms += now;
        return;
    }
    credit (nc, n, now);
    c = &nc->v[n->up_class];
    c->nup--;
    c->credited_sum_ms -= now;
}

int nodeclass_interrupted (struct nodeclass *nc, const struct node *n, const char *kind,
                           const char *detail)
{
    char cls[NODECLASS_NAME_MAX];

    nodeclass_of (n, cls, sizeof (cls));
    if (strcmp (kind, "failure") == 0 && util_now_ms () < n->reclaim_until_ms) {
        log_msg (LOG_INFO, "node %s (class %s): %s is its reclaim's, not counted again",
                 n->name, cls, detail ? detail : "failure");
        return 0;
    }
    class_get (nc, cls)->interruptions++;
    log_msg (LOG_INFO, "node %s (class %s): %s recorded (%s)", n->name, cls, kind,
             detail ? detail : "");
    return db_interruption_add (nc->srv->db, util_wall_secs (), n->name, cls, kind,
                                detail);
}

/* Every minute: the up time of the nodes up now, so far, to the
 * database. */
static void nodeclass_tick (struct loop *l, void *arg)
{
    struct nodeclass *nc = arg;
    int64_t now = util_now_ms ();
    struct node **nodes;
    int nn;

    nodes = nodes_all (nc->srv->nodes, &nn);
    for (int i = 0; i < nn; i++)
        if (nodes[i]->state == NODE_UP)
            credit (nc, nodes[i], now);
}

static int load_class (const char *cls, double node_seconds, int64_t n, void *arg)
{
    struct class_stat *c = class_get (arg, cls);

    c->exposure = node_seconds;
    c->interruptions = (long)n;
    return 0;
}

/* Refuse bad values at start rather than fall back on defaults later:
 * mtbi_prior[.CLASS] and price_per_hour[.CLASS]. */
static int check_setting (const char *key, const char *value, void *arg)
{
    struct hpcq_error *err = arg;
    int64_t secs;
    double v;
    /* ondemand_price_per_hour[.CLASS] takes the same numbers. */
    const char *price = strncmp (key, "ondemand_", 9) == 0 ? key + 9 : key;

    if (!strncmp (key, "mtbi_prior", 10) && (key[10] == '\0' || key[10] == '.')
        && (resource_parse_walltime (value, &secs, NULL) < 0 || secs <= 0))
        return errprintf (err, "invalid %s '%s' (HH:MM:SS or seconds, above 0)", key,
                          value);
    if (!strncmp (price, "price_per_hour", 14)
        && (price[14] == '\0' || price[14] == '.')
        && util_parse_double (value, 0, 1e12, &v) < 0)
        return errprintf (err, "invalid %s '%s' (a number from 0)", key, value);
    return 0;
}

struct nodeclass *nodeclass_create (struct server *srv, struct hpcq_error *err)
{
    struct nodeclass *nc = xzalloc (sizeof (*nc));

    nc->srv = srv;
    if (config_foreach (srv->cfg, check_setting, err) < 0)
        goto error;
    if (db_class_foreach (srv->db, load_class, nc) < 0) {
        errprintf (err, "cannot read node class history: %s", strerror (errno));
        goto error;
    }
    if (!(nc->tick = loop_timer_add (srv->loop, EXPOSURE_TICK_MS, EXPOSURE_TICK_MS,
                                     nodeclass_tick, nc))) {
        errprintf (err, "event loop: %s", strerror (errno));
        goto error;
    }
    return nc;
error:
    nodeclass_destroy (nc);
    return NULL;
}

void nodeclass_destroy (struct nodeclass *nc)
{
    if (!nc)
        return;
    loop_timer_remove (nc->tick);
    free (nc->v);
    free (nc);
}
