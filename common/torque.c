/* torque.c - see torque.h
 *
 * The rules are PBS Pro's (OpenPBS src/server/node_manager.c, the
 * nodes-to-select conversion), plus what Torque has and PBS Pro does not:
 * gpus=, procs=, and the per-process pmem and pvmem.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/torque.h"
#include "common/util.h"

#define invalid(err, ...) errprintf_code (err, EINVAL, __VA_ARGS__)

/* What res->torque holds: how the chunks were asked for. */
enum {
    TORQUE_NODES = 1,        /* nodes=: one chunk per node, scattered */
    TORQUE_NODES_EXCL = 2,   /* nodes=...#excl */
    TORQUE_NODES_SHARED = 3, /* nodes=...#shared */
    TORQUE_PROCS = 4,        /* procs=: cores anywhere */
};

/* All digits, 1 <= value <= INT_MAX. */
static int parse_count (const char *what, const char *s, int min, int *out,
                        struct hpcq_error *err)
{
    if (!isdigit ((unsigned char)s[0]) || util_parse_int (s, min, INT_MAX, out) < 0)
        return invalid (err, "invalid %s '%s' in nodes", what, s);
    return 0;
}

struct term {
    int ppn, cpp, gpus;
};

/* One ":item" of a term: ppn=, cpp= (or ncpus=), gpus=, or a property. */
static int term_item (struct hpcq_chunk *c, struct term *t, char *item,
                      struct hpcq_error *err)
{
    char *val = strchr (item, '=');

    if (item[0] == '\0')
        return invalid (err, "empty item in nodes");
    if (!val)
        return resource_chunk_add_label (c, item, err);
    *val++ = '\0';
    if (strcasecmp (item, "ppn") == 0)
        return parse_count ("ppn", val, 1, &t->ppn, err);
    if (strcasecmp (item, "cpp") == 0 || strcasecmp (item, "ncpus") == 0)
        return parse_count (item, val, 1, &t->cpp, err);
    if (strcasecmp (item, "gpus") == 0)
        return parse_count ("gpus", val, 0, &t->gpus, err);
    return invalid (err,
                    "unknown resource '%s' in nodes (ppn, cpp, gpus or a node "
                    "property)",
                    item);
}

/* "N[:item]..." or "HOST[:item]..." (modified in place); globals are the
 * "#PROPERTY" modifiers that apply to every term. */
static int term_parse (struct hpcq_resources *res, char *text, char **globals,
                       int nglobals, struct hpcq_error *err)
{
    struct hpcq_chunk *c;
    struct term t = { .ppn = 1, .cpp = 1, .gpus = 0 };
    char *first = strsep (&text, ":"), *item;

    if (!(c = resource_add_chunk (res, err)))
        return -1;
    if (first[0] == '\0')
        return invalid (err, "empty term in nodes");
    /* A number counts nodes; anything else names one (Torque's rule). */
    if (isdigit ((unsigned char)first[0])) {
        if (parse_count ("node count", first, 1, &c->count, err) < 0)
            return -1;
    } else if (resource_check_word ("host", first, err) < 0
               || !(c->host = resource_intern (first)))
        return -1;
    while ((item = strsep (&text, ":")))
        if (term_item (c, &t, item, err) < 0)
            return -1;
    for (int i = 0; i < nglobals; i++)
        if (resource_chunk_add_label (c, globals[i], err) < 0)
            return -1;
    if (__builtin_mul_overflow (t.ppn, t.cpp, &c->ncpus))
        return invalid (err, "ppn times cpp too large in nodes");
    c->mpiprocs = t.ppn;
    c->ngpus = t.gpus;
    return 0;
}

int torque_parse_nodes (struct hpcq_resources *res, const char *spec,
                        struct hpcq_error *err)
{
    char *copy = strdup (spec), *mods, *rest, *term, *globals[16];
    int nglobals = 0, mode = TORQUE_NODES, rc = -1;

    if (!copy)
        return errprintf_code (err, ENOMEM, "out of memory");
    /* "#excl", "#shared" and "#PROPERTY" after the terms. */
    if ((mods = strchr (copy, '#'))) {
        char *m;
        *mods++ = '\0';
        while ((m = strsep (&mods, "#"))) {
            if (strcasecmp (m, "excl") == 0)
                mode = TORQUE_NODES_EXCL;
            else if (strcasecmp (m, "shared") == 0)
                mode = TORQUE_NODES_SHARED;
            else if (nglobals == (int)ARRAY_SIZE (globals)) {
                invalid (err, "too many #properties in nodes");
                goto done;
            } else
                globals[nglobals++] = m;
        }
    }
    res->nchunks = 0;
    for (rest = copy; (term = strsep (&rest, "+"));)
        if (term_parse (res, term, globals, nglobals, err) < 0)
            goto done;
    res->torque = mode;
    rc = 0;
done:
    free (copy);
    return rc;
}

int torque_parse_procs (struct hpcq_resources *res, const char *value,
                        struct hpcq_error *err)
{
    struct hpcq_chunk *c;
    int n;

    if (parse_count ("procs", value, 1, &n, err) < 0)
        return invalid (err, "invalid procs '%s' (must be an integer >= 1)", value);
    res->nchunks = 0;
    if (!(c = resource_add_chunk (res, err)))
        return -1;
    c->count = n;
    res->torque = TORQUE_PROCS;
    return 0;
}

static int64_t total_nodes (const struct hpcq_resources *res)
{
    int64_t n = 0;

    for (int i = 0; i < res->nchunks; i++)
        n += res->chunk[i].count;
    return n > 0 ? n : 1;
}

/* A job-wide size per node, rounded down to a kilobyte as PBS Pro does. */
static int64_t per_node (int64_t bytes, int64_t nodes)
{
    return bytes / nodes / 1024 * 1024;
}

static int64_t per_process (int64_t bytes, int procs)
{
    int64_t v;

    return __builtin_mul_overflow (bytes, (int64_t)(procs > 0 ? procs : 1), &v)
               ? INT64_MAX / 2
               : v;
}

static void raise_mem (struct hpcq_chunk *c, int64_t mem)
{
    if (mem > c->mem)
        c->mem = mem;
}

void torque_spread_memory (struct hpcq_resources *res)
{
    int64_t nodes = total_nodes (res);

    for (int i = 0; i < res->nchunks; i++) {
        struct hpcq_chunk *c = &res->chunk[i];
        /* Processes: Torque's ppn; without nodes=, the processors asked for. */
        int procs = res->torque ? c->mpiprocs : c->ncpus;
        if (res->job_vmem >= 0)
            raise_mem (c, per_node (res->job_vmem, nodes));
        if (res->job_pmem >= 0)
            raise_mem (c, per_process (res->job_pmem, procs));
        if (res->job_pvmem >= 0)
            raise_mem (c, per_process (res->job_pvmem, procs));
    }
    res->job_vmem = res->job_pmem = res->job_pvmem = -1;
}

/* PBS Pro: a job-wide ncpus must be a multiple of the processors that
 * nodes= asks for, and each chunk's cores are multiplied by the ratio. */
static int spread_ncpus (struct hpcq_resources *res, struct hpcq_error *err)
{
    int64_t procs = 0;
    int factor;

    for (int i = 0; i < res->nchunks; i++)
        procs += (int64_t)res->chunk[i].count * res->chunk[i].ncpus;
    if (procs <= 0 || res->job_ncpus % procs != 0)
        return invalid (err,
                        "job-wide ncpus=%d is not a multiple of the %lld "
                        "processors that nodes= asks for",
                        res->job_ncpus, (long long)procs);
    factor = (int)(res->job_ncpus / procs);
    for (int i = 0; i < res->nchunks; i++)
        if (__builtin_mul_overflow (res->chunk[i].ncpus, factor, &res->chunk[i].ncpus))
            return invalid (err, "resource request too large");
    res->job_ncpus = -1;
    return 0;
}

int torque_finalize (struct hpcq_resources *res, struct hpcq_error *err)
{
    static const char *places[] = {
        [TORQUE_NODES] = "scatter",
        [TORQUE_NODES_EXCL] = "scatter:excl",
        [TORQUE_NODES_SHARED] = "scatter:shared",
        [TORQUE_PROCS] = "",
    };
    int mode = res->torque;

    if (mode < TORQUE_NODES || mode > TORQUE_PROCS)
        return invalid (err, "unknown Torque request kind %d", mode);
    if (res->job_ncpus >= 0 && spread_ncpus (res, err) < 0)
        return -1;
    if (res->job_mem >= 0) {
        int64_t mem = per_node (res->job_mem, total_nodes (res));
        for (int i = 0; i < res->nchunks; i++)
            raise_mem (&res->chunk[i], mem);
        res->job_mem = -1;
    }
    torque_spread_memory (res);
    /* Torque's nodes are distinct hosts, so PBS Pro scatters them. */
    if (res->place[0] == '\0')
        snprintf (res->place, sizeof (res->place), "%s", places[mode]);
    res->torque = 0;
    return 0;
}
