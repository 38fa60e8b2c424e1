/* alloc.c - an allocation as the scheduler stores and shows it: the JSON
 * of its slots (kept in the job's row to rebuild node usage after a
 * restart) and PBS's exec_host and exec_vnode strings.  See alloc.h. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/resource.h"
#include "common/util.h"
#include "scheduler/alloc.h"
#include "scheduler/node.h"

json_t *alloc_to_json (const struct alloc *a)
{
    json_t *arr = json_array ();

    for (int i = 0; arr && i < a->n; i++) {
        const struct alloc_slot *s = &a->slot[i];
        json_t *gpus = json_array ();
        for (int g = 0; gpus && g < s->ngpus; g++)
            json_array_append_new (gpus, json_integer (s->gpus[g]));
        /* "o" steals gpus into the new object. */
        json_t *o = json_pack ("{s:s s:i s:I s:o s:i s:b}", "node", s->node_name,
                               "ncpus", s->ncpus, "mem", (json_int_t)s->mem, "gpus",
                               gpus, "mpiprocs", s->mpiprocs, "excl", s->excl);
        /* The MIG instance as [gpu, instance], so a restart keeps it. */
        if (o && s->nmig)
            json_object_set_new (o, "mig",
                                 json_pack ("[i i]", s->mig_gpu, s->mig_inst));
        json_array_append_new (arr, o);
    }
    return arr;
}

struct alloc *alloc_from_json (struct nodes *ns,
                               struct node *(*get) (struct nodes *ns, const char *name),
                               const char *text)
{
    json_t *arr = json_loads (text, 0, NULL), *o;
    struct alloc *a = NULL;
    size_t i;

    if (!json_is_array (arr) || json_array_size (arr) == 0
        || json_array_size (arr) > INT_MAX
        || !(a = alloc_new ((int)json_array_size (arr))))
        goto error;
    json_array_foreach (arr, i, o)
    {
        struct alloc_slot *s = &a->slot[i];
        const char *node;
        json_t *gpus, *g, *mig = NULL;
        json_int_t mem;
        size_t k;
        if (json_unpack (o, "{s:s s:i s:I s:o s:i s:b s?o}", "node", &node, "ncpus",
                         &s->ncpus, "mem", &mem, "gpus", &gpus, "mpiprocs",
                         &s->mpiprocs, "excl", &s->excl, "mig", &mig)
                < 0
            || !json_is_array (gpus) || json_array_size (gpus) > 16
            || (mig && json_unpack (mig, "[i i]", &s->mig_gpu, &s->mig_inst) < 0))
            goto error;
        s->nmig = mig != NULL;
        s->mem = mem;
        snprintf (s->node_name, sizeof (s->node_name), "%s", node);
        s->node = get (ns, node);
        json_array_foreach (gpus, k, g) s->gpus[s->ngpus++] =
            (int)json_integer_value (g);
    }
    json_decref (arr);
    return a;
error:
    log_msg (LOG_ERR, "unreadable allocation record: %s", text);
    json_decref (arr);
    free (a);
    return NULL;
}

/* Close a memory stream and return its text (the caller frees it), or
 * NULL if it could not be made or written. */
static char *stream_text (FILE *f, char **text)
{
    int bad = !f || ferror (f);

    if (f && fclose (f) != 0)
        bad = 1;
    if (bad) {
        free (*text);
        *text = NULL;
    }
    return *text;
}

char *alloc_format_binding (const struct alloc *a, const char *first)
{
    char *text = NULL;
    size_t len;
    FILE *f;

    if (!first || !(f = open_memstream (&text, &len)))
        return first ? xstrdup (first) : NULL;
    fputs (first, f);
    for (int i = 1; i < a->n; i++) {
        const struct alloc_slot *s = &a->slot[i];
        if (strcmp (s->node_name, a->slot[0].node_name) == 0)
            continue; /* the first host's chunks are in its worker's report */
        fprintf (f, "+%s:ncpus=%d", s->node_name, s->ncpus);
        for (int g = 0; g < s->ngpus && g < (int)ARRAY_SIZE (s->gpus); g++)
            fprintf (f, "%s%d", g ? "," : ":gpus=", s->gpus[g]);
        fputs (":unbound", f);
    }
    return stream_text (f, &text);
}

/* exec_host "n1/0*2+n2/0*2", exec_vnode "(n1:ncpus=2:ngpus=1)+(n2:ncpus=2:mig=1g.5gb)". */
void alloc_format_exec (const struct alloc *a, char **exec_host, char **exec_vnode)
{
    char *host = NULL, *vnode = NULL;
    size_t hlen, vlen;
    FILE *h = open_memstream (&host, &hlen), *v = open_memstream (&vnode, &vlen);

    /* Streams, not a string grown slot by slot: a job of thousands of
     * nodes would copy its text thousands of times. */
    for (int i = 0; h && v && i < a->n; i++) {
        const struct alloc_slot *s = &a->slot[i];
        fprintf (h, "%s%s/0*%d", i ? "+" : "", s->node_name, s->ncpus);
        fprintf (v, "%s(%s:ncpus=%d", i ? "+" : "", s->node_name, s->ncpus);
        if (s->mem > 0) {
            char sz[24];
            resource_format_size (s->mem, sz, sizeof (sz));
            fprintf (v, ":mem=%s", sz);
        }
        if (s->ngpus)
            fprintf (v, ":ngpus=%d", s->ngpus);
        if (s->nmig && s->node && s->mig_gpu >= 0 && s->mig_gpu < s->node->ngpus
            && s->mig_inst >= 0 && s->mig_inst < s->node->gpu[s->mig_gpu].nmig)
            fprintf (v, ":mig=%s", s->node->gpu[s->mig_gpu].mig[s->mig_inst].profile);
        fputc (')', v);
    }
    *exec_host = stream_text (h, &host);
    *exec_vnode = stream_text (v, &vnode);
}
