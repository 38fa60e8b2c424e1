/* arrayspec.c - see arrayspec.h */
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
    *v = strtol (*p, &end, 10);
    *p = end;
    return *v > 100000000 ? -1 : 0;
}

static int cmp_int (const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* Room for n more indices in a: grown geometrically, since a list of
 * single indices grows it once per term. */
static int reserve (struct arrayspec *a, int *cap, long n)
{
    int want = a->n + (int)n, ncap = *cap ? *cap : 16;
    int *ni;

    if (want <= *cap)
        return 0;
    while (ncap < want)
        ncap *= 2;
    if (!(ni = realloc (a->index, (size_t)ncap * sizeof (int))))
        return -1;
    a->index = ni;
    *cap = ncap;
    return 0;
}

/* One "X", "X-Y" or "X-Y:Z" term: append its indices.  The count is
 * checked before anything is stored, so "0-99999999" costs nothing. */
static int term (const char **p, struct arrayspec *a, int *cap, struct hpcq_error *err,
                 const char *s)
{
    long lo, hi, step = 1, count;

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
    count = (hi - lo) / step + 1;
    if (count > ARRAYSPEC_MAX - a->n)
        return invalid (err, "array '%s' has more than %d subjobs", s, ARRAYSPEC_MAX);
    if (reserve (a, cap, count) < 0)
        return errprintf_code (err, ENOMEM, "out of memory");
    for (long i = lo; i <= hi; i += step)
        a->index[a->n++] = (int)i;
    return 0;
}

int arrayspec_parse (const char *s, struct arrayspec *a, struct hpcq_error *err)
{
    const char *p = s;
    int k = 0, cap = 0;

    memset (a, 0, sizeof (*a));
    for (;;) {
        if (term (&p, a, &cap, err, s) < 0)
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
    if (*p != '\0' || a->n == 0)
        goto bad;
    qsort (a->index, a->n, sizeof (int), cmp_int);
    for (int i = 0; i < a->n; i++)
        if (i == 0 || a->index[i] != a->index[k - 1])
            a->index[k++] = a->index[i];
    a->n = k;
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
    free (a->index);
    memset (a, 0, sizeof (*a));
}
