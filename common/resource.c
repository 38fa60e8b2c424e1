/* resource.c - PBS resource lists (-l) parsed into chunks.
 *
 * A job's resources are a list of chunks ("select=2:ncpus=4+1:ncpus=1")
 * plus job-wide values (walltime, place).  Users write them in PBS Pro
 * (select=) or Torque (nodes=N:ppn=C) spelling, or as bare job-wide
 * ncpus/mem/ngpus; resource_parse_list() reads one -l argument at a time
 * and resource_finalize() turns what was collected into the final chunk
 * list that the scheduler allocates from.  Nothing unknown is ignored: a
 * misspelt resource silently dropped would give the user a job that runs
 * with less than they asked for.
 */
#ifdef HAVE_CONFIG_H
/* <>, not "": "config.h" would find common/config.h (hpcq's config file
 * reader) next to this file before autoconf's in the build directory. */
#include <config.h>
#endif
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/intern.h"
#include "common/resource.h"
#include "common/torque.h"
#include "common/util.h"

struct size_unit {
    const char *name;
    int64_t mult;
};

/* Units PBS accepts; a word is 8 bytes. */
static const struct size_unit size_units[] = {
    { "", 1 },           { "b", 1 },          { "kb", 1LL << 10 }, { "mb", 1LL << 20 },
    { "gb", 1LL << 30 }, { "tb", 1LL << 40 }, { "pb", 1LL << 50 }, { "w", 8 },
    { "kw", 8LL << 10 }, { "mw", 8LL << 20 }, { "gw", 8LL << 30 }, { "tw", 8LL << 40 },
};

/* Units qstat prints, largest first (never words). */
static const struct size_unit print_units[] = {
    { "pb", 1LL << 50 }, { "tb", 1LL << 40 }, { "gb", 1LL << 30 },
    { "mb", 1LL << 20 }, { "kb", 1LL << 10 },
};

/* What a chunk is when nothing was asked for. */
static const struct hpcq_chunk default_chunk = {
    .count = 1,
    .ncpus = 1,
    .mem = 0,
    .ngpus = 0,
    .mpiprocs = 1,
};

static const char *place_arrangements[] = { "free", "pack", "scatter", NULL };
static const char *place_sharings[] = { "excl", "shared", NULL };

/* A parse error is EINVAL whatever errno held before. */
#define invalid(err, ...) errprintf_code (err, EINVAL, __VA_ARGS__)

/* Parse leading decimal digits of s (no sign, no blanks: strtoll would
 * accept both).  Sets *end past them.  Returns -1 on no digits/overflow.
 */
static int parse_digits (const char *s, const char **end, int64_t *out)
{
    char *e;
    long long v;

    if (!isdigit ((unsigned char)s[0]))
        return -1;
    errno = 0;
    v = strtoll (s, &e, 10);
    if (errno == ERANGE)
        return -1;
    *end = e;
    *out = v;
    return 0;
}

/* s must be all digits, value in [min, INT_MAX]. */
static int parse_int (const char *name, const char *s, int min, int *out,
                      struct hpcq_error *err)
{
    const char *end;
    int64_t v;

    if (parse_digits (s, &end, &v) < 0 || *end != '\0' || v < min || v > INT_MAX)
        return invalid (err, "invalid %s '%s' (must be an integer >= %d)", name, s,
                        min);
    *out = (int)v;
    return 0;
}

static const struct size_unit *size_unit_lookup (const char *name)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE (size_units); i++) {
        if (strcasecmp (size_units[i].name, name) == 0)
            return &size_units[i];
    }
    return NULL;
}

int resource_parse_size (const char *s, int64_t *bytes, struct hpcq_error *err)
{
    const struct size_unit *unit;
    const char *end;
    int64_t n;

    if (!s)
        s = "";
    if (parse_digits (s, &end, &n) < 0 || !(unit = size_unit_lookup (end))
        || __builtin_mul_overflow (n, unit->mult, &n))
        return invalid (err, "invalid size '%s'", s);
    *bytes = n;
    return 0;
}

int resource_parse_walltime (const char *s, int64_t *secs, struct hpcq_error *err)
{
    const char *p = s ? s : "";
    const char *end;
    int64_t total = 0;
    int64_t field;
    int nfields = 0;

    /* Horner over the colon-separated fields: ((H * 60) + M) * 60 + S. */
    for (;;) {
        if (parse_digits (p, &end, &field) < 0 || ++nfields > 3
            || __builtin_mul_overflow (total, 60, &total)
            || __builtin_add_overflow (total, field, &total))
            return invalid (err, "invalid walltime '%s'", s ? s : "");
        if (*end == '\0')
            break;
        if (*end != ':')
            return invalid (err, "invalid walltime '%s'", s);
        p = end + 1;
    }
    if (total > RESOURCE_WALLTIME_MAX)
        return invalid (err,
                        "walltime '%s' is more than the longest allowed, "
                        "596523:14:07 (2^31 - 1 seconds)",
                        s);
    *secs = total;
    return 0;
}

static int in_list (const char *s, const char **list)
{
    for (; *list; list++) {
        if (strcmp (s, *list) == 0)
            return 1;
    }
    return 0;
}

/* place=[arrangement][:sharing], at least one of the two. */
static int check_place (const char *s, struct hpcq_error *err)
{
    char buf[32];
    char *sharing;

    if (strlen (s) >= sizeof (buf) || s[0] == '\0')
        return invalid (err, "invalid place '%s'", s);
    strcpy (buf, s);
    if ((sharing = strchr (buf, ':')))
        *sharing++ = '\0';
    if (!sharing
        && (in_list (buf, place_arrangements) || in_list (buf, place_sharings)))
        return 0;
    if (sharing && in_list (buf, place_arrangements)
        && in_list (sharing, place_sharings))
        return 0;
    return invalid (err,
                    "invalid place '%s' (expected free, pack or"
                    " scatter, optionally with :excl or :shared)",
                    s);
}

void resource_init (struct hpcq_resources *res)
{
    memset (res, 0, sizeof (*res));
    res->walltime = -1;
    res->job_ncpus = -1;
    res->job_mem = -1;
    res->job_ngpus = -1;
    res->job_vmem = res->job_pmem = res->job_pvmem = -1;
    res->spot = -1;
    res->prefer_spot = -1;
    res->force_spot = -1;
}

void resource_release (struct hpcq_resources *res)
{
    if (!res)
        return;
    free (res->chunk);
    resource_init (res);
}

int resource_copy (struct hpcq_resources *dst, const struct hpcq_resources *src)
{
    *dst = *src;
    dst->chunk = NULL;
    if (src->nchunks > 0) {
        if (!(dst->chunk = malloc (src->nchunks * sizeof (*src->chunk)))) {
            resource_init (dst);
            errno = ENOMEM;
            return -1;
        }
        memcpy (dst->chunk, src->chunk, src->nchunks * sizeof (*src->chunk));
    }
    return 0;
}

struct hpcq_chunk *resource_add_chunk (struct hpcq_resources *res,
                                       struct hpcq_error *err)
{
    struct hpcq_chunk *v;

    if (res->nchunks >= HPCQ_MAX_CHUNKS) {
        invalid (err, "too many chunks (at most %d)", HPCQ_MAX_CHUNKS);
        return NULL;
    }
    if (!(v = realloc (res->chunk, (res->nchunks + 1) * sizeof (*v)))) {
        errprintf (err, "out of memory");
        return NULL;
    }
    res->chunk = v;
    v[res->nchunks] = default_chunk;
    return &v[res->nchunks++];
}

/* Chunk keys: one table for select= and one for Torque's nodes=. */
struct chunk_key {
    const char *name;
    int (*set) (struct hpcq_chunk *c, const char *val, struct hpcq_error *err);
};

static int chunk_set_ncpus (struct hpcq_chunk *c, const char *val,
                            struct hpcq_error *err)
{
    return parse_int ("ncpus", val, 1, &c->ncpus, err);
}

static int chunk_set_mem (struct hpcq_chunk *c, const char *val, struct hpcq_error *err)
{
    return resource_parse_size (val, &c->mem, err);
}

static int chunk_set_ngpus (struct hpcq_chunk *c, const char *val,
                            struct hpcq_error *err)
{
    return parse_int ("ngpus", val, 0, &c->ngpus, err);
}

static int chunk_set_mpiprocs (struct hpcq_chunk *c, const char *val,
                               struct hpcq_error *err)
{
    return parse_int ("mpiprocs", val, 0, &c->mpiprocs, err);
}

static int chunk_set_ompthreads (struct hpcq_chunk *c, const char *val,
                                 struct hpcq_error *err)
{
    return parse_int ("ompthreads", val, 1, &c->ompthreads, err);
}

int resource_check_mig (const char *s, struct hpcq_error *err)
{
    const char *end;
    int64_t slices, gb;

    /* No leading zeros: a profile has one spelling, the one nodes report
     * ("01g.5gb" would match none), and it fits HPCQ_MIG_MAX. */
    if (parse_digits (s, &end, &slices) < 0 || s[0] == '0' || slices < 1 || slices > 8
        || strncmp (end, "g.", 2) != 0 || end[2] == '0'
        || parse_digits (end + 2, &end, &gb) < 0 || gb < 1 || gb > 9999
        || strcmp (end, "gb") != 0)
        return invalid (err,
                        "invalid MIG profile '%s' (expected slices and "
                        "memory like 1g.5gb or 3g.20gb)",
                        s);
    return 0;
}

static int chunk_set_mig (struct hpcq_chunk *c, const char *val, struct hpcq_error *err)
{
    if (resource_check_mig (val, err) < 0)
        return -1;
    if (!(c->mig = resource_intern (val)))
        return invalid (err, "too many different GPU models and MIG profiles");
    return 0;
}

/* A model name is a word: letters, digits, '-', '_' and '.' (the
 * separators ':', '+', ',' and '=' would split the select string). */
static int check_gpu_model (const char *s, struct hpcq_error *err)
{
    size_t len = strlen (s);

    if (len == 0 || len > HPCQ_GPU_MODEL_MAX
        || strspn (s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                      "0123456789-_.")
               != len)
        return invalid (err,
                        "invalid gpu_model '%s' (letters, digits, '-', "
                        "'_' and '.', at most %d characters)",
                        s, HPCQ_GPU_MODEL_MAX);
    return 0;
}

static int chunk_set_gpu_model (struct hpcq_chunk *c, const char *val,
                                struct hpcq_error *err)
{
    if (check_gpu_model (val, err) < 0)
        return -1;
    if (!(c->gpu_model = resource_intern (val)))
        return invalid (err, "too many different GPU models and MIG profiles");
    return 0;
}

int resource_check_word (const char *what, const char *s, struct hpcq_error *err)
{
    size_t len = strlen (s);

    if (len == 0 || len > HPCQ_HOST_MAX
        || strspn (s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                      "0123456789-_.")
               != len)
        return invalid (err,
                        "invalid %s '%s' (letters, digits, '-', '_' and '.', "
                        "at most %d characters)",
                        what, s, HPCQ_HOST_MAX);
    return 0;
}

static int chunk_set_host (struct hpcq_chunk *c, const char *val,
                           struct hpcq_error *err)
{
    if (resource_check_word ("host", val, err) < 0)
        return -1;
    if (!(c->host = resource_intern (val)))
        return invalid (err, "too many different host names and labels");
    return 0;
}

static int is_select_key (const char *name);

/* A label is printed in the select statement as NAME=True, so it may not
 * be named like a chunk resource: "nodes=2:ncpus" would print as
 * ncpus=True, which no select reads back. */
static int check_label (const char *name, struct hpcq_error *err)
{
    if (resource_check_word ("node label", name, err) < 0)
        return -1;
    if (is_select_key (name))
        return invalid (err, "node label '%s' is the name of a resource", name);
    return 0;
}

int resource_chunk_add_label (struct hpcq_chunk *c, const char *name,
                              struct hpcq_error *err)
{
    char buf[1024];
    const char *have = chunk_labels (c);

    if (check_label (name, err) < 0)
        return -1;
    if (snprintf (buf, sizeof (buf), "%s%s%s", have, have[0] ? "," : "", name)
        >= (int)sizeof (buf))
        return invalid (err, "too many node labels in one chunk");
    if (!(c->labels = resource_intern (buf)))
        return invalid (err, "too many different host names and labels");
    return 0;
}

static const struct chunk_key select_keys[] = {
    { "ncpus", chunk_set_ncpus },
    { "mem", chunk_set_mem },
    { "ngpus", chunk_set_ngpus },
    { "mpiprocs", chunk_set_mpiprocs },
    { "gpu_model", chunk_set_gpu_model },
    { "mig", chunk_set_mig },
    { "host", chunk_set_host },
    /* PBS Pro's vnode=: each hpcq node is one vnode, named as its host
     * (exec_vnode shows node1:ncpus=...), so it is host= by another name. */
    { "vnode", chunk_set_host },
    { "ompthreads", chunk_set_ompthreads },
    { NULL, NULL },
};

static int is_select_key (const char *name)
{
    for (const struct chunk_key *k = select_keys; k->name; k++)
        if (strcasecmp (k->name, name) == 0)
            return 1;
    return 0;
}

/* One "key=value" item of a chunk term (modified in place). */
static int chunk_apply_item (struct hpcq_chunk *c, char *item,
                             const struct chunk_key *keys, const char *what,
                             struct hpcq_error *err)
{
    char *val = strchr (item, '=');

    if (!val)
        return invalid (err, "invalid %s item '%s'", what, item);
    *val++ = '\0';
    for (; keys->name; keys++) {
        if (strcasecmp (keys->name, item) == 0)
            return keys->set (c, val, err);
    }
    /* PBS's boolean node resources, "bigmem=True": here a node label. */
    if (strcasecmp (val, "true") == 0)
        return resource_chunk_add_label (c, item, err);
    return invalid (err, "unknown resource '%s' in %s", item, what);
}

/* One chunk term, "[N:]key=val:key=val" (modified in place). */
static int chunk_parse (char *term, const struct chunk_key *keys, const char *what,
                        struct hpcq_chunk *c, struct hpcq_error *err)
{
    char *item = strsep (&term, ":");

    *c = default_chunk;
    if (!strchr (item, '=')) {
        if (parse_int ("chunk count", item, 1, &c->count, err) < 0)
            return -1;
        item = strsep (&term, ":");
    }
    for (; item; item = strsep (&term, ":")) {
        if (chunk_apply_item (c, item, keys, what, err) < 0)
            return -1;
    }
    return 0;
}

/* "term+term+..." into res's chunk list, replacing any earlier
 * select/nodes. */
static int chunks_parse (struct hpcq_resources *res, const char *value,
                         const struct chunk_key *keys, const char *what,
                         struct hpcq_error *err)
{
    char *copy = strdup (value);
    char *rest = copy;
    char *term;
    int rc = -1;

    if (!copy)
        return errprintf (err, "out of memory");
    res->nchunks = 0;
    while ((term = strsep (&rest, "+"))) {
        struct hpcq_chunk *c = resource_add_chunk (res, err);
        if (!c) {
            if (res->nchunks == HPCQ_MAX_CHUNKS)
                invalid (err, "too many chunks in %s (at most %d)", what,
                         HPCQ_MAX_CHUNKS);
            goto done;
        }
        if (chunk_parse (term, keys, what, c, err) < 0)
            goto done;
    }
    rc = 0;
done:
    free (copy);
    return rc;
}

/* Top-level resource names. */
struct resource_key {
    const char *name;
    int (*set) (struct hpcq_resources *res, const char *val, struct hpcq_error *err);
};

static int res_set_select (struct hpcq_resources *res, const char *val,
                           struct hpcq_error *err)
{
    res->torque = 0;
    res->said |= RESOURCE_SAID_SELECT;
    return chunks_parse (res, val, select_keys, "select", err);
}

static int res_set_nodes (struct hpcq_resources *res, const char *val,
                          struct hpcq_error *err)
{
    res->said |= RESOURCE_SAID_NODES;
    return torque_parse_nodes (res, val, err);
}

static int res_set_procs (struct hpcq_resources *res, const char *val,
                          struct hpcq_error *err)
{
    res->said |= RESOURCE_SAID_NODES;
    return torque_parse_procs (res, val, err);
}

static int res_set_vmem (struct hpcq_resources *res, const char *val,
                         struct hpcq_error *err)
{
    return resource_parse_size (val, &res->job_vmem, err);
}

static int res_set_pmem (struct hpcq_resources *res, const char *val,
                         struct hpcq_error *err)
{
    return resource_parse_size (val, &res->job_pmem, err);
}

static int res_set_pvmem (struct hpcq_resources *res, const char *val,
                          struct hpcq_error *err)
{
    return resource_parse_size (val, &res->job_pvmem, err);
}

static int res_set_walltime (struct hpcq_resources *res, const char *val,
                             struct hpcq_error *err)
{
    int64_t secs;

    if (resource_parse_walltime (val, &secs, err) < 0)
        return -1;
    /* The job would be killed the moment it starts. */
    if (secs == 0)
        return invalid (err, "walltime=%s is no time at all: ask for more than 0", val);
    res->walltime = secs;
    return 0;
}

static int res_set_mem (struct hpcq_resources *res, const char *val,
                        struct hpcq_error *err)
{
    return resource_parse_size (val, &res->job_mem, err);
}

static int res_set_ncpus (struct hpcq_resources *res, const char *val,
                          struct hpcq_error *err)
{
    return parse_int ("ncpus", val, 1, &res->job_ncpus, err);
}

static int res_set_ngpus (struct hpcq_resources *res, const char *val,
                          struct hpcq_error *err)
{
    return parse_int ("ngpus", val, 0, &res->job_ngpus, err);
}

static int res_set_place (struct hpcq_resources *res, const char *val,
                          struct hpcq_error *err)
{
    if (check_place (val, err) < 0)
        return -1;
    snprintf (res->place, sizeof (res->place), "%s", val);
    return 0;
}

int resource_parse_bool (const char *s)
{
    static const char *yes[] = { "true", "t", "yes", "y", "1", NULL };
    static const char *no[] = { "false", "f", "no", "n", "0", NULL };

    for (int i = 0; yes[i]; i++)
        if (strcasecmp (s, yes[i]) == 0)
            return 1;
    for (int i = 0; no[i]; i++)
        if (strcasecmp (s, no[i]) == 0)
            return 0;
    return -1;
}

/* spot=true|false: a boolean as PBS spells them. */
static int res_set_spot (struct hpcq_resources *res, const char *val,
                         struct hpcq_error *err)
{
    static const char *const words[] = { "", "prefer", "require", "avoid", "never" };
    int b = resource_parse_bool (val);

    for (int i = 1; i < (int)ARRAY_SIZE (words) && b < 0; i++)
        if (strcasecmp (val, words[i]) == 0) {
            res->spot_want = i;
            res->spot = i == RES_SPOT_REQUIRE ? 1 : i == RES_SPOT_NEVER ? 0 : -1;
            return 0;
        }
    if (b < 0)
        return invalid (
            err, "invalid spot '%s' (true, false, prefer, require, avoid or never)",
            val);
    res->spot = b;
    res->spot_want = b ? RES_SPOT_REQUIRE : RES_SPOT_NEVER;
    return 0;
}

/* gpu_bind=closest|none, cpu_bind=cores|none: one of a few words. */
static int res_set_word (const char *key, const char *val, const char *const *words,
                         char *dst, size_t len, struct hpcq_error *err)
{
    for (int i = 0; words[i]; i++)
        if (strcasecmp (val, words[i]) == 0) {
            snprintf (dst, len, "%s", words[i]);
            return 0;
        }
    return invalid (err, "invalid %s '%s' (%s or %s)", key, val, words[0], words[1]);
}

static int res_set_gpu_bind (struct hpcq_resources *res, const char *val,
                             struct hpcq_error *err)
{
    static const char *const words[] = { "closest", "none", NULL };

    return res_set_word ("gpu_bind", val, words, res->gpu_bind, sizeof (res->gpu_bind),
                         err);
}

static int res_set_cpu_bind (struct hpcq_resources *res, const char *val,
                             struct hpcq_error *err)
{
    static const char *const words[] = { "cores", "none", NULL };

    return res_set_word ("cpu_bind", val, words, res->cpu_bind, sizeof (res->cpu_bind),
                         err);
}

/* An absolute path a container may name: no control characters, and none
 * of the separators of these lists (',' '+' ':'). */
static int container_path_ok (const char *p, size_t len)
{
    if (p[0] != '/' || len == 0 || len >= 1024)
        return 0;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f || p[i] == ',' || p[i] == '+'
            || p[i] == ':')
            return 0;
    return 1;
}

static int res_set_container_image (struct hpcq_resources *res, const char *val,
                                    struct hpcq_error *err)
{
    const char *slash = strrchr (val, '/'), *colon = slash ? strchr (slash, ':') : NULL;
    size_t n = colon ? (size_t)(colon - val) : strlen (val);

    if (!container_path_ok (val, n)
        || (colon && (!colon[1] || strchr (colon + 1, ','))))
        return invalid (err,
                        "invalid container_image '%s' (an absolute path to an OCI "
                        "image layout, optionally :TAG)",
                        val);
    if (!(res->container_image = resource_intern (val)))
        return invalid (err, "too many distinct container images");
    return 0;
}

/* SRC:DST[:ro|rw] items joined by '+', each path absolute. */
static int check_mounts (const char *val)
{
    for (const char *p = val; *p;) {
        const char *end = strchr (p, '+'), *c1, *c2;
        size_t n = end ? (size_t)(end - p) : strlen (p);
        c1 = memchr (p, ':', n);
        if (!c1 || !container_path_ok (p, (size_t)(c1 - p)))
            return -1;
        c2 = memchr (c1 + 1, ':', n - (size_t)(c1 + 1 - p));
        if (!container_path_ok (c1 + 1, (size_t)((c2 ? c2 : p + n) - c1 - 1)))
            return -1;
        if (c2
            && !((p + n - c2 - 1 == 2)
                 && (!strncmp (c2 + 1, "ro", 2) || !strncmp (c2 + 1, "rw", 2))))
            return -1;
        p += n + (end ? 1 : 0);
        if (end && !*p)
            return -1;
    }
    return 0;
}

static int res_set_container_mounts (struct hpcq_resources *res, const char *val,
                                     struct hpcq_error *err)
{
    if (check_mounts (val) < 0)
        return invalid (err,
                        "invalid container_mounts '%s' (SRC:DST[:ro] items joined by "
                        "'+', absolute paths)",
                        val);
    if (!(res->container_mounts = resource_intern (val)))
        return invalid (err, "too many distinct container mounts");
    return 0;
}

static int res_set_container_workdir (struct hpcq_resources *res, const char *val,
                                      struct hpcq_error *err)
{
    if (!container_path_ok (val, strlen (val)))
        return invalid (err, "invalid container_workdir '%s' (an absolute path)", val);
    if (!(res->container_workdir = resource_intern (val)))
        return invalid (err, "too many distinct container folders");
    return 0;
}

static const struct resource_key resource_keys[] = {
    { "gpu_bind", res_set_gpu_bind },
    { "cpu_bind", res_set_cpu_bind },
    { "container_image", res_set_container_image },
    { "container_mounts", res_set_container_mounts },
    { "container_workdir", res_set_container_workdir },
    { "select", res_set_select },
    { "nodes", res_set_nodes },
    { "procs", res_set_procs },
    { "vmem", res_set_vmem },
    { "pmem", res_set_pmem },
    { "pvmem", res_set_pvmem },
    { "walltime", res_set_walltime },
    { "mem", res_set_mem },
    { "ncpus", res_set_ncpus },
    { "ngpus", res_set_ngpus },
    { "place", res_set_place },
    { "spot", res_set_spot },
};

/* One "name=value" item of an -l list (modified in place). */
static int resource_apply_item (struct hpcq_resources *res, char *item,
                                struct hpcq_error *err)
{
    char *val = strchr (item, '=');
    size_t i;

    if (item[0] == '\0')
        return invalid (err, "empty item in resource list");
    if (val)
        *val++ = '\0';
    for (i = 0; i < ARRAY_SIZE (resource_keys); i++) {
        if (strcasecmp (resource_keys[i].name, item) != 0)
            continue;
        if (!val || *val == '\0')
            return invalid (err, "missing value for resource '%s'", item);
        return resource_keys[i].set (res, val, err);
    }
    return invalid (err, "unknown resource '%s'", item);
}

int resource_parse_list (struct hpcq_resources *res, const char *arg,
                         struct hpcq_error *err)
{
    struct hpcq_resources tmp;
    char *copy;
    char *rest;
    char *item;
    int rc = 0;

    if (!arg || arg[0] == '\0')
        return invalid (err, "empty resource list");
    /* Work on a copy so a bad list leaves res as it was. */
    if (!(copy = strdup (arg)) || resource_copy (&tmp, res) < 0) {
        free (copy);
        return errprintf (err, "out of memory");
    }
    rest = copy;
    while (rc == 0 && (item = strsep (&rest, ",")))
        rc = resource_apply_item (&tmp, item, err);
    free (copy);
    if (rc == 0) {
        resource_release (res);
        *res = tmp;
    } else
        resource_release (&tmp);
    return rc;
}

/* The chunks to count: the default chunk where none were asked for. */
static const struct hpcq_chunk *chunks_of (const struct hpcq_resources *res, int *n)
{
    if (res->nchunks <= 0) {
        *n = 1;
        return &default_chunk;
    }
    *n = res->nchunks;
    return res->chunk;
}

/* Sum count * field(chunk) in 64 bits; -1 on overflow. */
static int64_t chunks_sum (const struct hpcq_resources *res,
                           int64_t (*field) (const struct hpcq_chunk *))
{
    int n, i;
    const struct hpcq_chunk *c = chunks_of (res, &n);
    int64_t total = 0;
    int64_t v;

    for (i = 0; i < n; i++) {
        if (__builtin_mul_overflow ((int64_t)c[i].count, field (&c[i]), &v)
            || __builtin_add_overflow (total, v, &total))
            return -1;
    }
    return total;
}

static int64_t field_one (const struct hpcq_chunk *c)
{
    return 1;
}

static int64_t field_ncpus (const struct hpcq_chunk *c)
{
    return c->ncpus;
}

static int64_t field_mem (const struct hpcq_chunk *c)
{
    return c->mem;
}

static int64_t field_ngpus (const struct hpcq_chunk *c)
{
    return c->ngpus;
}

static int64_t field_mpiprocs (const struct hpcq_chunk *c)
{
    return c->mpiprocs;
}

int resource_total_ncpus (const struct hpcq_resources *res)
{
    return (int)chunks_sum (res, field_ncpus);
}

int64_t resource_total_mem (const struct hpcq_resources *res)
{
    return chunks_sum (res, field_mem);
}

int resource_total_ngpus (const struct hpcq_resources *res)
{
    return (int)chunks_sum (res, field_ngpus);
}

int resource_total_chunks (const struct hpcq_resources *res)
{
    return (int)chunks_sum (res, field_one);
}

/* Job-wide values with no select/nodes become the one chunk.  They are
 * cleared afterwards so that finalizing twice is harmless.  0 or -1. */
static int fold_job_wide (struct hpcq_resources *res, struct hpcq_error *err)
{
    struct hpcq_chunk *c;

    res->nchunks = 0;
    if (!(c = resource_add_chunk (res, err)))
        return -1;
    if (res->job_ncpus > 0)
        c->ncpus = res->job_ncpus;
    if (res->job_mem >= 0)
        c->mem = res->job_mem;
    if (res->job_ngpus >= 0)
        c->ngpus = res->job_ngpus;
    /* Torque's vmem (whole job) and pmem, pvmem (per processor) size the
     * one chunk's memory too. */
    torque_spread_memory (res);
    res->job_ncpus = -1;
    res->job_mem = -1;
    res->job_ngpus = -1;
    return 0;
}

/* A job-wide mem beside select, as PBS Pro takes it (pbs_resources(7B),
 * "Limits on Resource Usage" and the -l mem=16gb -l nodes=4 example): when
 * no chunk asks for memory it is spread over the chunks (mem=16gb with 4
 * chunks gives each 4gb, rounded up to a kilobyte); when the chunks ask
 * for memory, their sum is the job's limit and overrides it. */
static void fold_job_mem (struct hpcq_resources *res)
{
    int64_t count = chunks_sum (res, field_one), each;

    if (res->job_mem < 0 || count < 1)
        return;
    if (resource_total_mem (res) == 0) {
        /* Rounded up per chunk, then to a KiB, without overflowing on a
         * huge job-wide mem (check_chunks refuses what does not fit). */
        each = res->job_mem / count + (res->job_mem % count != 0);
        each = each > INT64_MAX - 1023 ? INT64_MAX / 1024 * 1024
                                       : (each + 1023) / 1024 * 1024;
        for (int i = 0; i < res->nchunks; i++)
            res->chunk[i].mem = each;
    }
    res->job_mem = -1;
}

/* With select/nodes, PBS Pro refuses a job-wide ncpus (which chunk would
 * it go to?).  A job-wide ngpus is only a restatement of the total and
 * must match it, or the user believes in a limit that is not there.
 */
static int check_job_wide (const struct hpcq_resources *res, struct hpcq_error *err)
{
    if (res->job_ncpus >= 0)
        return invalid (err,
                        "job-wide ncpus=%d cannot be combined with"
                        " select; put ncpus in the chunk",
                        res->job_ncpus);
    if (res->job_vmem >= 0 || res->job_pmem >= 0 || res->job_pvmem >= 0)
        return invalid (err,
                        "%s is Torque's and cannot be combined with select;"
                        " put mem in the chunks",
                        res->job_vmem >= 0   ? "vmem"
                        : res->job_pmem >= 0 ? "pmem"
                                             : "pvmem");
    if (res->job_ngpus >= 0 && res->job_ngpus != resource_total_ngpus (res))
        return invalid (err,
                        "job-wide ngpus=%d does not match the select"
                        " total %d",
                        res->job_ngpus, resource_total_ngpus (res));
    return 0;
}

/* A comma-separated list of label words. */
static int check_labels (const char *s, struct hpcq_error *err)
{
    char buf[1024];
    char *p, *word;

    if (strlen (s) >= sizeof (buf))
        return invalid (err, "node label list too long");
    strcpy (buf, s);
    for (p = buf; (word = strsep (&p, ","));)
        if (check_label (word, err) < 0)
            return -1;
    return 0;
}

static int check_chunk (const struct hpcq_chunk *c, int i, struct hpcq_error *err)
{
    if (c->count < 1)
        return invalid (err, "chunk %d: count %d out of range", i + 1, c->count);
    if (c->ncpus < 1)
        return invalid (err, "chunk %d: ncpus %d out of range", i + 1, c->ncpus);
    if (c->mem < 0)
        return invalid (err, "chunk %d: mem out of range", i + 1);
    if (c->ngpus < 0)
        return invalid (err, "chunk %d: ngpus %d out of range", i + 1, c->ngpus);
    if (c->mpiprocs < 0)
        return invalid (err, "chunk %d: mpiprocs %d out of range", i + 1, c->mpiprocs);
    if (c->ompthreads < 0)
        return invalid (err, "chunk %d: ompthreads %d out of range", i + 1,
                        c->ompthreads);
    /* The strings may come from a stored spec, not only from the parser. */
    if (chunk_mig (c)[0] && resource_check_mig (c->mig, err) < 0)
        return -1;
    if (chunk_host (c)[0] && resource_check_word ("host", c->host, err) < 0)
        return -1;
    if (chunk_labels (c)[0] && check_labels (c->labels, err) < 0)
        return -1;
    if (chunk_model (c)[0] && check_gpu_model (c->gpu_model, err) < 0)
        return -1;
    /* One chunk, one kind of GPU share: whole GPUs and a MIG slice of
     * another would need two devices with different visibility rules. */
    if (chunk_mig (c)[0] && c->ngpus > 0)
        return invalid (err,
                        "chunk %d: ngpus=%d and mig=%s cannot be "
                        "combined (a chunk gets whole GPUs or one MIG "
                        "instance; use two chunks)",
                        i + 1, c->ngpus, c->mig);
    return 0;
}

/* Each chunk in range, and no total overflows what the totals return. */
static int check_chunks (const struct hpcq_resources *res, struct hpcq_error *err)
{
    int i;
    int64_t (*int_fields[]) (const struct hpcq_chunk *) = {
        field_one,
        field_ncpus,
        field_ngpus,
        field_mpiprocs,
    };

    if (res->nchunks < 1 || res->nchunks > HPCQ_MAX_CHUNKS)
        return invalid (err, "between 1 and %d chunks allowed, got %d", HPCQ_MAX_CHUNKS,
                        res->nchunks);
    for (i = 0; i < res->nchunks; i++) {
        if (check_chunk (&res->chunk[i], i, err) < 0)
            return -1;
    }
    for (i = 0; i < (int)ARRAY_SIZE (int_fields); i++) {
        int64_t total = chunks_sum (res, int_fields[i]);
        if (total < 0 || total > INT_MAX)
            return invalid (err, "resource request too large");
    }
    if (chunks_sum (res, field_mem) < 0)
        return invalid (err, "resource request too large");
    return 0;
}

int resource_finalize (struct hpcq_resources *res, struct hpcq_error *err)
{
    if (res->torque && torque_finalize (res, err) < 0)
        return -1;
    /* pbs_resources(7B): "Jobs cannot use both new and old syntax". */
    if (res->said == (RESOURCE_SAID_SELECT | RESOURCE_SAID_NODES))
        return invalid (err, "select= and nodes=/procs= (Torque's syntax) cannot be "
                             "combined: give one of them");
    if (res->nchunks == 0 && fold_job_wide (res, err) < 0)
        return -1;
    if (!res->torque)
        fold_job_mem (res);
    if (check_chunks (res, err) < 0 || check_job_wide (res, err) < 0)
        return -1;
    if (res->walltime < -1 || res->walltime > RESOURCE_WALLTIME_MAX)
        return invalid (err, "walltime out of range");
    if (memchr (res->place, '\0', sizeof (res->place)) == NULL)
        return invalid (err, "invalid place");
    if (res->place[0] != '\0' && check_place (res->place, err) < 0)
        return -1;
    return 0;
}

void resource_format_walltime (int64_t secs, char *buf, int len)
{
    if (len <= 0)
        return;
    if (secs < 0) {
        snprintf (buf, len, "--");
        return;
    }
    snprintf (buf, len, "%02lld:%02d:%02d", (long long)(secs / 3600),
              (int)(secs / 60 % 60), (int)(secs % 60));
}

void resource_format_size (int64_t bytes, char *buf, int len)
{
    size_t i;

    if (len <= 0)
        return;
    for (i = 0; bytes > 0 && i < ARRAY_SIZE (print_units); i++) {
        if (bytes % print_units[i].mult == 0) {
            snprintf (buf, len, "%lld%s", (long long)(bytes / print_units[i].mult),
                      print_units[i].name);
            return;
        }
    }
    snprintf (buf, len, "%lldb", (long long)bytes);
}

/* Append to buf at *pos, never past len; output is cut short if small. */
static void append (char *buf, int len, int *pos, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

static void append (char *buf, int len, int *pos, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (*pos >= len - 1)
        return;
    va_start (ap, fmt);
    n = vsnprintf (buf + *pos, len - *pos, fmt, ap);
    va_end (ap);
    if (n > 0)
        *pos = *pos + n < len - 1 ? *pos + n : len - 1;
}

static void format_chunk (const struct hpcq_chunk *c, char *buf, int len, int *pos)
{
    char mem[32];

    append (buf, len, pos, "%d:ncpus=%d", c->count, c->ncpus);
    if (c->mem > 0) {
        resource_format_size (c->mem, mem, sizeof (mem));
        append (buf, len, pos, ":mem=%s", mem);
    }
    if (c->ngpus > 0)
        append (buf, len, pos, ":ngpus=%d", c->ngpus);
    if (c->mpiprocs != 1)
        append (buf, len, pos, ":mpiprocs=%d", c->mpiprocs);
    if (c->ompthreads > 0)
        append (buf, len, pos, ":ompthreads=%d", c->ompthreads);
    if (chunk_model (c)[0])
        append (buf, len, pos, ":gpu_model=%s", c->gpu_model);
    if (chunk_mig (c)[0])
        append (buf, len, pos, ":mig=%s", c->mig);
    if (chunk_host (c)[0])
        append (buf, len, pos, ":host=%s", c->host);
    for (const char *l = chunk_labels (c); *l;) {
        size_t n = strcspn (l, ",");
        append (buf, len, pos, ":%.*s=True", (int)n, l);
        l += n + (l[n] == ',');
    }
}

void resource_format_select (const struct hpcq_resources *res, char *buf, int len)
{
    int n, i;
    int pos = 0;
    const struct hpcq_chunk *c = chunks_of (res, &n);

    if (len <= 0)
        return;
    buf[0] = '\0';
    for (i = 0; i < n; i++) {
        if (i > 0)
            append (buf, len, &pos, "+");
        format_chunk (&c[i], buf, len, &pos);
    }
}

/* Interned texts (GPU models and MIG profiles a site has), kept for the
 * life of the process; requests parsed on several threads at a
 * scheduler's start share the table. */
static struct intern texts = INTERN_INIT (RESOURCE_INTERN_MAX);

const char *resource_intern (const char *s)
{
    const char *t = intern_text (&texts, s);

    if (!t)
        errno = ENOSPC;
    return t;
}
