/* srun_layout.c - see srun_layout.h */
#include <config.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli/srun_layout.h"
#include "common/util.h"

#define NOT_AVAILABLE "Requested node configuration is not available"

static int host_index (const struct srun_hosts *h, const char *name)
{
    for (int i = 0; i < h->n; i++)
        if (strcmp (h->name[i], name) == 0)
            return i;
    return -1;
}

/* The step's nodes: the ones -w names, then the job's others in order, as
 * many as wanted; in the job's order (as Slurm numbers a step's nodes). */
static int pick_nodes (const struct srun_hosts *h, const struct srun_request *r,
                       int want, int *node, struct hpcq_error *err)
{
    char *in = xzalloc (h->n + 1);
    int k = 0;

    for (int i = 0; r->nodelist && r->nodelist[i]; i++) {
        int x = host_index (h, r->nodelist[i]);
        if (x < 0) {
            free (in);
            return errprintf (err, NOT_AVAILABLE " (%s is not a node of the job)",
                              r->nodelist[i]);
        }
        in[x] = 1;
    }
    for (int i = 0; i < h->n; i++)
        k += in[i];
    for (int i = 0; i < h->n && k < want; i++)
        if (!in[i]) {
            in[i] = 1;
            k++;
        }
    k = 0;
    for (int i = 0; i < h->n; i++)
        if (in[i])
            node[k++] = i;
    free (in);
    return k;
}

/* Tasks per node: at least one each, the rest by block (fill each node's
 * room in turn) or cyclic (one per node round the list). */
static int spread (const struct srun_hosts *h, const struct srun_request *r,
                   struct srun_layout *l, struct hpcq_error *err)
{
    int *cap = xzalloc (l->nnodes * sizeof (int)), room = 0, left;

    for (int k = 0; k < l->nnodes; k++) {
        cap[k] = r->per_node ? r->per_node : h->slots[l->node[k]];
        if (r->overcommit && !r->per_node)
            cap[k] = INT_MAX / (l->nnodes + 1);
        room += cap[k];
        l->node_tasks[k] = 1;
    }
    if (room < l->ntasks) {
        free (cap);
        return errprintf (err, "More processors requested than permitted");
    }
    left = l->ntasks - l->nnodes;
    for (int k = 0; !r->cyclic && k < l->nnodes && left > 0; k++) {
        int add = cap[k] - 1 < left ? cap[k] - 1 : left;
        l->node_tasks[k] += add;
        left -= add;
    }
    for (int k = 0; left > 0; k = (k + 1) % l->nnodes)
        if (l->node_tasks[k] < cap[k]) {
            l->node_tasks[k]++;
            left--;
        }
    free (cap);
    return 0;
}

static void number_tasks (const struct srun_request *r, struct srun_layout *l)
{
    int t = 0, *used = xzalloc (l->nnodes * sizeof (int));

    if (!r->cyclic) {
        for (int k = 0; k < l->nnodes; k++)
            for (int i = 0; i < l->node_tasks[k]; i++, t++) {
                l->task_node[t] = k;
                l->task_local[t] = i;
            }
    } else {
        for (int k = 0; t < l->ntasks; k = (k + 1) % l->nnodes)
            if (used[k] < l->node_tasks[k]) {
                l->task_node[t] = k;
                l->task_local[t++] = used[k]++;
            }
    }
    free (used);
}

int srun_layout_make (const struct srun_hosts *h, const struct srun_request *r,
                      struct srun_layout *l, struct hpcq_error *err)
{
    int named = 0, want, slots = 0;

    memset (l, 0, sizeof (*l));
    for (int i = 0; r->nodelist && r->nodelist[i]; i++)
        named++;
    for (int i = 0; i < h->n; i++)
        slots += h->slots[i];
    want = r->nnodes > named ? r->nnodes : named;
    if (r->ntasks)
        l->ntasks = r->ntasks;
    else if (r->per_node)
        l->ntasks = r->per_node * (want ? want : h->n);
    else if (want)
        l->ntasks = want;
    else
        l->ntasks = r->env_ntasks ? r->env_ntasks : slots;
    if (!want) {
        want = h->n;
        if (r->per_node && (l->ntasks + r->per_node - 1) / r->per_node < want)
            want = (l->ntasks + r->per_node - 1) / r->per_node;
    }
    /* Slurm: "can't run 1 processes on 2 nodes, setting nnodes to 1". */
    if (want > l->ntasks)
        want = l->ntasks;
    if (want > h->n || l->ntasks < 1)
        return errprintf (err, NOT_AVAILABLE);
    l->node = xzalloc ((h->n + 1) * sizeof (int));
    if ((l->nnodes = pick_nodes (h, r, want, l->node, err)) < 0)
        goto error;
    if (l->nnodes > l->ntasks) {
        errprintf (err, NOT_AVAILABLE " (%d nodes named for %d tasks)", l->nnodes,
                   l->ntasks);
        goto error;
    }
    l->node_tasks = xzalloc ((l->nnodes + 1) * sizeof (int));
    l->task_node = xzalloc ((l->ntasks + 1) * sizeof (int));
    l->task_local = xzalloc ((l->ntasks + 1) * sizeof (int));
    if (spread (h, r, l, err) < 0)
        goto error;
    number_tasks (r, l);
    return 0;
error:
    srun_layout_release (l);
    return -1;
}

void srun_layout_release (struct srun_layout *l)
{
    if (!l)
        return;
    free (l->node);
    free (l->node_tasks);
    free (l->task_node);
    free (l->task_local);
    memset (l, 0, sizeof (*l));
}
