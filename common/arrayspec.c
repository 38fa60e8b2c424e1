/* arrayspec.c - see arrayspec.h
 *
 * Terms that come in ascending order without overlapping (one range, or a
 * list written in order) are kept as they are written; anything else is
 * expanded, sorted, stripped of duplicates and cut into runs again.
 */
#include <config.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/arrayspec.h"

#define invalid(err, ...) errprintf_code (err, EINVAL, __VA_ARGS__)

static int number (const char **p, long *v)
{
    char *end;

    if (!isdigit ((unsigned char)**p))
        return -1;
    errno = 0;
    *v = strtol (*p, &end, 10);
    *p = end;
    return errno || *v > ARRAYSPEC_INDEX_MAX ? -1 : 0;
}

static int cmp_int (const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static int run_last (const struct arrayspec_run *r)
{
    return r->first + (r->count - 1) * r->step;
}

static int run_append (struct arrayspec *a, int *cap, int first, int step, int count)
{
    if (a->nrun == *cap) {
        int ncap = *cap ? *cap * 2 : 4;
        struct arrayspec_run *v = realloc (a->run, ncap * sizeof (*v));
        if (!v)
            return -1;
        a->run = v;
        *cap = ncap;
    }
    a->run[a->nrun++] = (struct arrayspec_run){ first, step, count, 0 };
    return 0;
}

/* One "X", "X-Y" or "X-Y:Z" term, appended as a run. */
static int term (const char **p, struct arrayspec *a, int *cap, long *total,
                 struct hpcq_error *err, const char *s)
{
    long lo, hi, step = 1;

    if (number (p, &lo) < 0)
        return invalid (err, "invalid array range '%s'", s);
    hi = lo;
    if (**p == '-') {
        (*p)++;
        if (number (p, &hi) < 0 || hi < lo)
            return invalid (err, "invalid array range '%s'", s);
    }
    if (**p == ':') {
        (*p)++;
        if (number (p, &step) < 0 || step < 1)
            return invalid (err, "invalid array step in '%s'", s);
    }
    *total += (hi - lo) / step + 1;
    if (*total > ARRAYSPEC_MAX)
        return invalid (err, "array '%s' has more than %d subjobs", s, ARRAYSPEC_MAX);
    if (run_append (a, cap, (int)lo, (int)step, (int)((hi - lo) / step + 1)) < 0)
        return errprintf_code (err, ENOMEM, "out of memory");
    return 0;
}

/* The runs as written, if ascending and disjoint. */
static int runs_in_order (const struct arrayspec *a)
{
    for (int i = 1; i < a->nrun; i++)
        if (a->run[i].first <= run_last (&a->run[i - 1]))
            return 0;
    return 1;
}

/* Expand, sort, drop duplicates, and cut into runs again. */
static int runs_normalize (struct arrayspec *a, long total)
{
    int *idx = malloc ((total > 0 ? total : 1) * sizeof (*idx)), n = 0, k = 0, cap = 0;

    if (!idx)
        return -1;
    for (int r = 0; r < a->nrun; r++)
        for (int i = 0; i < a->run[r].count; i++)
            idx[n++] = a->run[r].first + i * a->run[r].step;
    qsort (idx, n, sizeof (*idx), cmp_int);
    for (int i = 0; i < n; i++)
        if (i == 0 || idx[i] != idx[k - 1])
            idx[k++] = idx[i];
    a->nrun = 0;
    for (int i = 0; i < k;) {
        int step = i + 1 < k ? idx[i + 1] - idx[i] : 1, count = 1;
        while (i + count < k && idx[i + count] - idx[i + count - 1] == step)
            count++;
        if (run_append (a, &cap, idx[i], step, count) < 0) {
            free (idx);
            return -1;
        }
        i += count;
    }
    free (idx);
    return 0;
}

int arrayspec_parse (const char *s, struct arrayspec *a, struct hpcq_error *err)
{
    const char *p = s;
    long total = 0;
    int cap = 0;

    memset (a, 0, sizeof (*a));
    for (;;) {
        if (term (&p, a, &cap, &total, err, s) < 0)
            goto error;
        if (*p != ',')
            break;
        p++;
    }
    if (*p == '%') {
        long limit;
        p++;
        if (number (&p, &limit) < 0 || limit < 1)
            goto bad;
        a->limit = (int)limit;
    }
    if (*p != '\0' || total == 0)
        goto bad;
    if (!runs_in_order (a) && runs_normalize (a, total) < 0) {
        errprintf_code (err, ENOMEM, "out of memory");
        goto error;
    }
    for (int r = 0; r < a->nrun; r++) {
        a->run[r].pos = a->n;
        a->n += a->run[r].count;
    }
    if (a->n < 2 && !strchr (s, '-') && !strchr (s, ','))
        goto bad; /* PBS: an array needs a range */
    return 0;
bad:
    invalid (err, "invalid array range '%s' (X-Y[:STEP][%%LIMIT] or a list)", s);
error:
    arrayspec_release (a);
    return -1;
}

void arrayspec_release (struct arrayspec *a)
{
    free (a->run);
    memset (a, 0, sizeof (*a));
}

/* The last run whose first position (by_pos) or first index is at or
 * before v. */
static const struct arrayspec_run *run_before (const struct arrayspec *a, int v,
                                               int by_pos)
{
    int lo = 0, hi = a->nrun - 1;

    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if ((by_pos ? a->run[mid].pos : a->run[mid].first) <= v)
            lo = mid;
        else
            hi = mid - 1;
    }
    return &a->run[lo];
}

int arrayspec_index (const struct arrayspec *a, int pos)
{
    const struct arrayspec_run *r = run_before (a, pos, 1);

    return r->first + (pos - r->pos) * r->step;
}

int arrayspec_pos (const struct arrayspec *a, int index)
{
    const struct arrayspec_run *r;

    if (a->nrun == 0 || index < a->run[0].first)
        return -1;
    r = run_before (a, index, 0);
    if (index > run_last (r) || (index - r->first) % r->step != 0)
        return -1;
    return r->pos + (index - r->first) / r->step;
}
