/* sim_trace.c - see sim_trace.h.  Files are read through zlib, which
 * passes uncompressed input through unchanged, so a user can give the
 * archive's .swf.gz or an unpacked .swf alike. */
#include <config.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "common/util.h"
#include "sim/sim_trace.h"

#define LINE_MAX_LEN 4096
#define SWF_FIELDS 18

/* The reader's state: where we are, for error messages. */
struct reader {
    gzFile gz;
    const char *path;
    int lineno;
    char line[LINE_MAX_LEN];
};

static int reader_open (struct reader *r, const char *path, struct hpcq_error *err)
{
    r->path = path;
    r->lineno = 0;
    r->gz = strcmp (path, "-") == 0 ? gzdopen (dup (STDIN_FILENO), "rb")
                                    : gzopen (path, "rb");
    if (!r->gz)
        return errprintf (err, "cannot open '%s': %s", path,
                          errno ? strerror (errno) : "out of memory");
    return 0;
}

/* The next line without its newline: 1, 0 at the end, -1 with err. */
static int reader_next (struct reader *r, struct hpcq_error *err)
{
    size_t len;
    int zerr;

    if (!gzgets (r->gz, r->line, sizeof (r->line))) {
        const char *msg = gzerror (r->gz, &zerr);
        if (zerr != Z_OK && zerr != Z_BUF_ERROR)
            return errprintf (err, "%s: cannot read: %s", r->path,
                              zerr == Z_ERRNO ? strerror (errno) : msg);
        return 0;
    }
    r->lineno++;
    len = strlen (r->line);
    if (len == sizeof (r->line) - 1 && r->line[len - 1] != '\n')
        return errprintf (err, "%s:%d: line too long", r->path, r->lineno);
    r->line[strcspn (r->line, "\r\n")] = '\0';
    return 1;
}

static void reader_close (struct reader *r)
{
    if (r->gz)
        gzclose (r->gz);
}

static int trace_push (struct sim_trace *t, int *cap, const struct sim_job *j)
{
    if (t->njobs == *cap) {
        int ncap = *cap ? *cap * 2 : 1024;
        struct sim_job *v = realloc (t->job, (size_t)ncap * sizeof (*v));
        if (!v)
            return -1;
        t->job = v;
        *cap = ncap;
    }
    t->job[t->njobs++] = *j;
    return 0;
}

static int cmp_arrival (const void *a, const void *b)
{
    const struct sim_job *x = a, *y = b;

    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Header comments such as "; MaxProcs: 100". */
static void swf_header (struct sim_trace *t, const char *line)
{
    long v;

    if (sscanf (line, "; MaxProcs: %ld", &v) == 1 && v > 0)
        t->max_procs = (int)v;
    else if (sscanf (line, "; MaxNodes: %ld", &v) == 1 && v > 0 && !t->max_procs)
        t->max_procs = (int)v;
}

/* Split an SWF record into f[]; the number of fields, or -1 if one is
 * not a number. */
static int swf_fields (char *line, double *f)
{
    int n = 0;

    for (char *tok = strtok (line, " \t"); tok; tok = strtok (NULL, " \t")) {
        char *end;
        if (n == SWF_FIELDS)
            return -1;
        errno = 0;
        f[n++] = strtod (tok, &end);
        if (*end || errno)
            return -1;
    }
    return n;
}

/* One SWF record into j: 1 to keep it, 0 to skip it (counted as invalid),
 * -1 if malformed. */
static int swf_record (char *line, struct sim_job *j)
{
    double f[SWF_FIELDS];
    int n = swf_fields (line, f);

    if (n < 11)
        return -1;
    /* The fields used must be numbers their C types hold (converting
     * 1e300 or nan to an integer is undefined); an archive's are whole
     * numbers or -1. */
    for (int i = 0; i < 9; i++)
        if (!(f[i] >= -1e15 && f[i] <= 1e15))
            return -1;
    if (f[4] > INT_MAX || f[7] > INT_MAX)
        return -1;
    memset (j, 0, sizeof (*j));
    j->id = (int64_t)f[0];
    j->submit = (int64_t)f[1];
    j->run = (int64_t)f[3];
    j->procs = f[7] > 0 ? (int)f[7] : (int)f[4]; /* requested, else allocated */
    j->walltime = f[8] > 0 ? (int64_t)f[8] : j->run;
    if (j->submit < 0)
        return -1;
    return j->run > 0 && j->procs > 0;
}

/* What a line handler found: */
enum { LINE_SKIPPED = 0, LINE_JOB = 1, LINE_OTHER = 2 };

/* A format's line handler: fills j and says what the line was (a job
 * kept, a record skipped as invalid, or no record), or -1 with err. */
typedef int (*line_f) (struct sim_trace *t, const struct reader *r, char *line,
                       struct sim_job *j, struct hpcq_error *err);

/* Read path line by line through parse; limit > 0 stops after that many
 * records.  Jobs end up in arrival order.  0, or -1 with err. */
static int trace_read (struct sim_trace *t, const char *path, int limit, line_f parse,
                       struct hpcq_error *err)
{
    struct reader r = { 0 };
    int cap = 0, rc, records = 0;

    if (reader_open (&r, path, err) < 0)
        return -1;
    while ((rc = reader_next (&r, err)) > 0) {
        struct sim_job j;
        char *p = r.line + strspn (r.line, " \t");
        if (*p == '\0')
            continue;
        if ((rc = parse (t, &r, p, &j, err)) < 0)
            break;
        if (rc == LINE_OTHER)
            continue;
        if (limit > 0 && records++ == limit)
            break;
        if (rc == LINE_SKIPPED)
            t->invalid++;
        else if (trace_push (t, &cap, &j) < 0) {
            rc = errprintf (err, "out of memory");
            break;
        }
    }
    reader_close (&r);
    if (rc < 0) {
        sim_trace_release (t);
        return -1;
    }
    if (t->njobs > 1) /* qsort's array may not be NULL, even empty */
        qsort (t->job, t->njobs, sizeof (*t->job), cmp_arrival);
    return 0;
}

static int swf_line (struct sim_trace *t, const struct reader *r, char *line,
                     struct sim_job *j, struct hpcq_error *err)
{
    int rc;

    if (*line == ';') {
        swf_header (t, line);
        return LINE_OTHER;
    }
    if ((rc = swf_record (line, j)) < 0)
        return errprintf (err, "%s:%d: malformed SWF record", r->path, r->lineno);
    if (rc && j->procs > t->largest)
        t->largest = j->procs;
    return rc ? LINE_JOB : LINE_SKIPPED;
}

int sim_trace_read_swf (struct sim_trace *t, const char *path, int limit,
                        struct hpcq_error *err)
{
    memset (t, 0, sizeof (*t));
    return trace_read (t, path, limit, swf_line, err);
}

/* The GPUS column: a count, or mig=PROFILE passed on to the resource
 * parser (which knows the MIG profiles, or says it does not). */
static int gpu_column (const char *s, int nodes, int cores, char *buf, size_t len)
{
    char *end;
    long g;

    if (strncmp (s, "mig=", 4) == 0 && s[4])
        return snprintf (buf, len, "select=%d:ncpus=%d:%s", nodes, cores, s) < (int)len
                   ? 0
                   : -1;
    g = strtol (s, &end, 10);
    if (*end || g < 0 || g > 1024)
        return -1;
    if (g == 0)
        snprintf (buf, len, "select=%d:ncpus=%d", nodes, cores);
    else
        snprintf (buf, len, "select=%d:ncpus=%d:ngpus=%ld", nodes, cores, g);
    return 0;
}

/* One GPU workload line into j: 0, or -1 with err. */
static int gpu_record (const struct reader *r, char *line, struct sim_job *j,
                       struct hpcq_error *err)
{
    char *tok[8];
    int n = 0;
    int64_t nodes, cores = 1;
    struct hpcq_error e;

    for (char *p = strtok (line, " \t"); p; p = strtok (NULL, " \t")) {
        if (n == 7)
            return errprintf (err, "%s:%d: too many fields", r->path, r->lineno);
        tok[n++] = p;
    }
    if (n < 6)
        return errprintf (err,
                          "%s:%d: expected ARRIVAL WALLTIME RUNTIME NODES "
                          "GPUS QUEUE [CORES]",
                          r->path, r->lineno);
    memset (j, 0, sizeof (*j));
    j->id = r->lineno;
    if (util_parse_i64 (tok[0], 0, INT64_MAX, &j->submit) < 0)
        return errprintf (err, "%s:%d: invalid arrival '%s'", r->path, r->lineno,
                          tok[0]);
    if (resource_parse_walltime (tok[1], &j->walltime, &e) < 0 || j->walltime <= 0)
        return errprintf (err, "%s:%d: invalid walltime '%s'", r->path, r->lineno,
                          tok[1]);
    if (util_parse_i64 (tok[2], 1, INT64_MAX, &j->run) < 0)
        return errprintf (err, "%s:%d: invalid run time '%s'", r->path, r->lineno,
                          tok[2]);
    if (util_parse_i64 (tok[3], 1, 4096, &nodes) < 0)
        return errprintf (err, "%s:%d: invalid node count '%s'", r->path, r->lineno,
                          tok[3]);
    if (n == 7 && util_parse_i64 (tok[6], 1, 65536, &cores) < 0)
        return errprintf (err, "%s:%d: invalid core count '%s'", r->path, r->lineno,
                          tok[6]);
    if (gpu_column (tok[4], (int)nodes, (int)cores, j->gpu_req, sizeof (j->gpu_req))
        < 0)
        return errprintf (err, "%s:%d: invalid GPUS '%s' (a count or mig=PROFILE)",
                          r->path, r->lineno, tok[4]);
    snprintf (j->queue, sizeof (j->queue), "%s", tok[5]);
    return 0;
}

static int gpu_line (struct sim_trace *t, const struct reader *r, char *line,
                     struct sim_job *j, struct hpcq_error *err)
{
    if (*line == '#')
        return LINE_OTHER;
    return gpu_record (r, line, j, err) < 0 ? -1 : LINE_JOB;
}

int sim_trace_read_gpu (struct sim_trace *t, const char *path, int limit,
                        struct hpcq_error *err)
{
    memset (t, 0, sizeof (*t));
    t->gpu_format = 1;
    return trace_read (t, path, limit, gpu_line, err);
}

/* The SWF job's request: whole nodes, then the remainder. */
static void swf_select (const struct sim_job *j, int cores, char *buf, size_t len)
{
    int whole = j->procs / cores, rest = j->procs % cores;

    if (whole && rest)
        snprintf (buf, len, "select=%d:ncpus=%d+1:ncpus=%d", whole, cores, rest);
    else if (whole)
        snprintf (buf, len, "select=%d:ncpus=%d", whole, cores);
    else
        snprintf (buf, len, "select=1:ncpus=%d", rest);
}

int sim_trace_resolve (struct sim_trace *t, int cores_per_node, struct hpcq_error *err)
{
    for (int i = 0; i < t->njobs; i++) {
        struct sim_job *j = &t->job[i];
        char sel[128];
        struct hpcq_error e;

        if (t->gpu_format)
            snprintf (sel, sizeof (sel), "%s", j->gpu_req);
        else
            swf_select (j, cores_per_node, sel, sizeof (sel));
        resource_init (&j->res);
        if (resource_parse_list (&j->res, sel, &e) < 0
            || resource_finalize (&j->res, &e) < 0)
            return errprintf (err, "job %lld: %s", (long long)j->id, e.text);
        j->res.walltime = j->walltime;
    }
    return 0;
}

void sim_trace_release (struct sim_trace *t)
{
    if (t) {
        for (int i = 0; i < t->njobs; i++)
            resource_release (&t->job[i].res);
        free (t->job);
        t->job = NULL;
        t->njobs = 0;
    }
}

static int cmp_reclaim (const void *a, const void *b)
{
    const struct sim_reclaim *x = a, *y = b;

    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->node - y->node;
}

/* One reclaim line into rc: 0, or -1 with err. */
static int reclaim_record (const struct reader *r, char *line, struct sim_reclaim *rc,
                           struct hpcq_error *err)
{
    char *when = strtok (line, " \t"), *node = strtok (NULL, " \t");
    struct hpcq_error e;
    int64_t v;

    if (!when || !node || strtok (NULL, " \t"))
        return errprintf (err, "%s:%d: expected TIME NODE", r->path, r->lineno);
    if (resource_parse_walltime (when, &rc->time, &e) < 0)
        return errprintf (err, "%s:%d: invalid time '%s'", r->path, r->lineno, when);
    if (strncmp (node, "sim", 3) == 0)
        node += 3;
    if (util_parse_i64 (node, 1, 1000000, &v) < 0)
        return errprintf (err,
                          "%s:%d: invalid node '%s' (a number from 1, or simNNNNN)",
                          r->path, r->lineno, node);
    rc->node = (int)v - 1;
    return 0;
}

int sim_trace_read_reclaims (const char *path, struct sim_reclaim **v, int *n,
                             struct hpcq_error *err)
{
    struct reader r = { 0 };
    int cap = 0, rc;

    *v = NULL;
    *n = 0;
    if (reader_open (&r, path, err) < 0)
        return -1;
    while ((rc = reader_next (&r, err)) > 0) {
        char *p = r.line + strspn (r.line, " \t");
        if (*p == '\0' || *p == '#')
            continue;
        if (*n == cap) {
            struct sim_reclaim *nv;
            cap = cap ? cap * 2 : 64;
            if (!(nv = realloc (*v, (size_t)cap * sizeof (*nv)))) {
                rc = errprintf (err, "out of memory");
                break;
            }
            *v = nv;
        }
        if ((rc = reclaim_record (&r, p, &(*v)[*n], err)) < 0)
            break;
        (*n)++;
    }
    reader_close (&r);
    if (rc < 0) {
        free (*v);
        *v = NULL;
        *n = 0;
        return -1;
    }
    if (*n > 1)
        qsort (*v, *n, sizeof (**v), cmp_reclaim);
    return 0;
}
