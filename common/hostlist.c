/* hostlist.c - see hostlist.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"

struct hname {
    const char *name;
    size_t plen; /* prefix length: up to the trailing digits */
    int digits;  /* has trailing digits */
    int width;   /* their count if zero-padded ("01"), else 0 */
    long long num;
};

static void hname_split (const char *s, struct hname *h)
{
    size_t len = strlen (s), p = len;

    while (p > 0 && isdigit ((unsigned char)s[p - 1]))
        p--;
    h->name = s;
    /* Too many digits to be a number: the whole name is the prefix. */
    if (len - p > 18)
        p = len;
    h->plen = p;
    h->digits = len > p;
    h->width = len - p > 1 && s[p] == '0' ? (int)(len - p) : 0;
    h->num = h->digits ? atoll (s + p) : 0;
}

/* Grouping order: prefix, digit width, number. */
static int hname_cmp (const void *a, const void *b)
{
    const struct hname *x = a, *y = b;
    size_t n = x->plen < y->plen ? x->plen : y->plen;
    int c = strncmp (x->name, y->name, n);

    if (c)
        return c;
    if (x->plen != y->plen)
        return x->plen < y->plen ? -1 : 1;
    if (x->digits != y->digits)
        return x->digits < y->digits ? -1 : 1;
    if (x->width != y->width)
        return x->width < y->width ? -1 : 1;
    return x->num < y->num ? -1 : x->num > y->num;
}

static int same_group (const struct hname *x, const struct hname *y)
{
    return x->digits && y->digits && x->width == y->width && x->plen == y->plen
           && strncmp (x->name, y->name, x->plen) == 0;
}

struct out {
    char *buf;
    size_t len, pos;
};

static void put (struct out *o, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
static void put (struct out *o, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start (ap, fmt);
    n = vsnprintf (o->pos < o->len ? o->buf + o->pos : NULL,
                   o->pos < o->len ? o->len - o->pos : 0, fmt, ap);
    va_end (ap);
    if (n > 0)
        o->pos += (size_t)n;
}

/* One group h[0..n): "p[01-03,07]", or the plain name when alone. */
static void put_group (struct out *o, const struct hname *h, int n)
{
    if (n == 1) {
        put (o, "%s", h[0].name);
        return;
    }
    put (o, "%.*s[", (int)h[0].plen, h[0].name);
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && h[j + 1].num == h[j].num + 1)
            j++;
        put (o, "%s%0*lld", i ? "," : "", h[i].width, h[i].num);
        if (j > i)
            put (o, "-%0*lld", h[j].width, h[j].num);
        i = j + 1;
    }
    put (o, "]");
}

size_t hostlist_format (const char *const *hosts, int n, char *buf, size_t len)
{
    struct out o = { buf, len, 0 };
    struct hname *h = n > 0 ? calloc ((size_t)n, sizeof (*h)) : NULL;
    int k = 0;

    if (len > 0)
        buf[0] = '\0';
    if (!h)
        return 0;
    for (int i = 0; i < n; i++)
        hname_split (hosts[i], &h[i]);
    qsort (h, (size_t)n, sizeof (*h), hname_cmp);
    /* Drop duplicates (a node named once per MPI slot in a nodefile). */
    for (int i = 0; i < n; i++)
        if (k == 0 || strcmp (h[k - 1].name, h[i].name) != 0)
            h[k++] = h[i];
    for (int i = 0; i < k;) {
        int j = i + 1;
        while (j < k && same_group (&h[i], &h[j]))
            j++;
        if (i > 0)
            put (&o, ",");
        put_group (&o, &h[i], j - i);
        i = j;
    }
    free (h);
    return o.pos;
}

/* One bracketed range list "01-03,07" after prefix, each number padded
 * to its written width, suffix after it: cb for each name. */
static int expand_ranges (const char *prefix, size_t plen, const char *ranges,
                          size_t rlen, const char *suffix, size_t slen, int max,
                          int *count, int (*cb) (const char *name, void *arg),
                          void *arg)
{
    const char *p = ranges, *end = ranges + rlen;

    while (p < end) {
        const char *q = p;
        long long a, b;
        int width;
        char *e;
        while (q < end && *q != ',')
            q++;
        if (!isdigit ((unsigned char)*p))
            return -1;
        a = strtoll (p, &e, 10);
        width = (int)(e - p);
        b = a;
        if (e < q && *e == '-') {
            if (!isdigit ((unsigned char)e[1]))
                return -1;
            b = strtoll (e + 1, &e, 10);
        }
        if (e != q || b < a || width > 18)
            return -1;
        for (long long v = a; v <= b; v++) {
            char name[256];
            if (++*count > max
                || snprintf (name, sizeof (name), "%.*s%0*lld%.*s", (int)plen, prefix,
                             p[0] == '0' && width > 1 ? width : 0, v, (int)slen, suffix)
                       >= (int)sizeof (name))
                return -1;
            if (cb (name, arg) < 0)
                return -1;
        }
        p = q + (q < end);
    }
    return 0;
}

int hostlist_expand (const char *list, int max, int (*cb) (const char *name, void *arg),
                     void *arg)
{
    const char *p = list;
    int count = 0;

    while (*p) {
        const char *open = NULL, *close = NULL, *q = p;
        /* One item: up to a comma outside brackets. */
        while (*q && (*q != ',' || (open && !close))) {
            if (*q == '[') {
                if (open)
                    return -1;
                open = q;
            } else if (*q == ']') {
                if (!open || close)
                    return -1;
                close = q;
            }
            q++;
        }
        if (q == p || (open && !close))
            return -1;
        if (open) {
            if (expand_ranges (p, (size_t)(open - p), open + 1,
                               (size_t)(close - open - 1), close + 1,
                               (size_t)(q - close - 1), max, &count, cb, arg)
                < 0)
                return -1;
        } else {
            char name[256];
            if (++count > max || (size_t)(q - p) >= sizeof (name))
                return -1;
            snprintf (name, sizeof (name), "%.*s", (int)(q - p), p);
            if (cb (name, arg) < 0)
                return -1;
        }
        p = q + (*q == ',');
    }
    return count > 0 ? count : -1;
}
