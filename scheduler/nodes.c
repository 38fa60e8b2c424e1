/* nodes.c - see nodes.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "db/db_node.h"
#include "scheduler/nodes.h"
#include "scheduler/policy/place.h"

struct nodes {
    struct server *srv;
    struct node **v; /* sorted by name */
    int n, cap;
};

struct nodes *nodes_create (struct server *srv)
{
    struct nodes *ns = calloc (1, sizeof (*ns));

    if (!ns)
        return NULL;
    ns->srv = srv;
    return ns;
}

void nodes_destroy (struct nodes *ns)
{
    if (!ns)
        return;
    for (int i = 0; i < ns->n; i++)
        free (ns->v[i]);
    free (ns->v);
    free (ns);
}

const char *node_state_name (enum node_state s)
{
    switch (s) {
    case NODE_UP: return "free";
    case NODE_DOWN: return "down";
    default: return "state-unknown";
    }
}

struct node *nodes_lookup (struct nodes *ns, const char *name)
{
    int lo = 0, hi = ns->n - 1;

    while (lo <= hi) {
        int mid = (lo + hi) / 2, c = strcmp (ns->v[mid]->name, name);
        if (c == 0)
            return ns->v[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

struct node *nodes_get (struct nodes *ns, const char *name)
{
    struct node *n = nodes_lookup (ns, name);
    int pos = 0;

    if (n)
        return n;
    if (ns->n == ns->cap) {
        ns->cap = ns->cap ? ns->cap * 2 : 16;
        ns->v = xrealloc (ns->v, ns->cap * sizeof (*ns->v));
    }
    while (pos < ns->n && strcmp (ns->v[pos]->name, name) < 0)
        pos++;
    memmove (&ns->v[pos + 1], &ns->v[pos], (ns->n - pos) * sizeof (*ns->v));
    n = xzalloc (sizeof (*n));
    snprintf (n->name, sizeof (n->name), "%s", name);
    /* Zeroed: NODE_UNKNOWN, its state until nodes_set_state says else. */
    n->last_heard_ms = util_now_ms ();
    ns->v[pos] = n;
    ns->n++;
    return n;
}

struct node **nodes_all (struct nodes *ns, int *n)
{
    *n = ns->n;
    return ns->v;
}

int nodes_free_gpus (const struct node *n)
{
    int free_gpus = 0;
    for (int i = 0; i < n->ngpus; i++)
        if (!n->gpu[i].used_by)
            free_gpus++;
    return free_gpus;
}

void node_set_link (struct node *n, struct conn *c)
{
    n->conn = c;
    n->reachable = c != NULL;
}

int nodes_send (struct node *n, struct wire_msg *msg)
{
    if (!n->conn) {
        errno = ENOTCONN;
        return -1;
    }
    return conn_send (n->conn, msg);
}

/* A GPU's MIG instances ("mig": [{"profile": "1g.5gb", "uuid": ...}]). */
static int nodes_load_one (const struct db_node *rec, void *arg)
{
    struct nodes *ns = arg;
    struct node *n = nodes_get (ns, rec->name);
    json_t *gpus = json_loads (rec->gpus ? rec->gpus : "[]", 0, NULL);

    n->ncpus = rec->ncpus;
    n->mem = rec->mem;
    snprintf (n->labels, sizeof (n->labels), "%s", rec->labels ? rec->labels : "");
    n->offline = rec->offline;
    snprintf (n->comment, sizeof (n->comment), "%s", rec->comment ? rec->comment : "");
    if (!gpus || gpu_from_json (gpus, n->gpu, &n->ngpus) < 0)
        n->ngpus = 0;
    json_decref (gpus);
    place_node_sync (n);
    return 0;
}

int nodes_load (struct nodes *ns)
{
    return db_node_foreach (ns->srv->db, nodes_load_one, ns);
}
