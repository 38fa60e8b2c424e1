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
    size_t plen;            /* prefix length: up to the trailing digits */
    int digits;             /* has trailing digits */
    int width;              /* their count if zero-padded ("01"), else 0 */
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

static void put (struct out *o, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
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
