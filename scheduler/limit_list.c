/* limit_list.c - see limit_list.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/resource.h"
#include "common/util.h"
#include "scheduler/limit_list.h"

static int bad (struct hpcq_error *err, const char *fmt, const char *s)
{
    errno = EINVAL;
    return errprintf (err, fmt, s);
}

static int valid_entity (const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isalnum ((unsigned char)*s) && !strchr ("_.-@", *s))
            return 0;
    return 1;
}

static int parse_value (const char *s, int is_size, int64_t *v, struct hpcq_error *err)
{
    char *end;

    if (is_size)
        return resource_parse_size (s, v, err) < 0 || *v > LIMIT_VALUE_MAX
                   ? bad (err, "Illegal attribute or resource value: limit '%s'", s)
                   : 0;
    errno = 0;
    *v = strtoll (s, &end, 10);
    if (errno || end == s || *end || *v < 0 || *v > LIMIT_VALUE_MAX)
        return bad (err,
                    "Illegal attribute or resource value: limit '%s' (a whole "
                    "number)",
                    s);
    return 0;
}

/* One "[k:name=value]" at s (no brackets): into e. */
static int parse_entry (char *s, int is_size, struct limit_entry *e,
                        struct hpcq_error *err)
{
    char *colon = strchr (s, ':'), *eq = strrchr (s, '=');

    if (!colon || !eq || eq < colon || colon != s + 1)
        return bad (err,
                    "Illegal attribute or resource value: '[%s]' is not "
                    "[u:USER=N], [g:GROUP=N] or [o:PBS_ALL=N]",
                    s);
    *eq = '\0';
    e->kind = (char)tolower ((unsigned char)s[0]);
    if (e->kind == 'p')
        return bad (err,
                    "project limits ([p:%s]) are not supported: hpcq has no "
                    "projects",
                    colon + 1);
    if (!strchr ("ugo", e->kind) || !valid_entity (colon + 1)
        || strlen (colon + 1) >= sizeof (e->name))
        return bad (err,
                    "Illegal attribute or resource value: unknown limit "
                    "entity '%s' (u:, g: or o:)",
                    s);
    snprintf (e->name, sizeof (e->name), "%s", colon + 1);
    if ((e->kind == 'o') != (strcmp (e->name, "PBS_ALL") == 0))
        return bad (err,
                    "Illegal attribute or resource value: '%s': o: takes "
                    "PBS_ALL, and only o: does",
                    s);
    return parse_value (eq + 1, is_size, &e->value, err);
}

static struct limit_list *list_new (int n, int is_size)
{
    struct limit_list *l = xzalloc (sizeof (*l) + (n ? n : 1) * sizeof (l->e[0]));

    l->is_size = is_size;
    return l;
}

/* Put e in l (replacing an entry of the same kind and name). */
static void list_put (struct limit_list *l, const struct limit_entry *e)
{
    for (int i = 0; i < l->n; i++) {
        if (l->e[i].kind == e->kind && strcmp (l->e[i].name, e->name) == 0) {
            l->e[i] = *e;
            return;
        }
    }
    l->e[l->n++] = *e;
}

struct limit_list *limit_list_parse (const char *text, int is_size,
                                     struct hpcq_error *err)
{
    size_t cap = strlen (text) / 6 + 1; /* "[o:X=1]" is 7 characters */
    struct limit_list *l;
    char *copy = xstrdup (text), *p = copy;

    if (cap > LIMIT_MAX_ENTRIES)
        cap = LIMIT_MAX_ENTRIES;
    l = list_new ((int)cap, is_size);
    for (;;) {
        struct limit_entry e;
        char *close;
        p += strspn (p, " \t,");
        if (!*p)
            break;
        if (*p != '[' || !(close = strchr (p, ']'))) {
            bad (err,
                 "Illegal attribute or resource value: '%s' (limits are "
                 "written [u:USER=N], [o:PBS_ALL=N], ...)",
                 text);
            goto error;
        }
        *close = '\0';
        if (parse_entry (p + 1, is_size, &e, err) < 0)
            goto error;
        if ((size_t)l->n == cap) {
            bad (err, "Illegal attribute or resource value: too many limits in '%.40s'",
                 text);
            goto error;
        }
        list_put (l, &e);
        p = close + 1;
    }
    if (l->n == 0) {
        bad (err, "Illegal attribute or resource value: '%s' sets no limit", text);
        goto error;
    }
    free (copy);
    return l;
error:
    free (copy);
    free (l);
    return NULL;
}

void limit_list_free (struct limit_list *l)
{
    free (l);
}

static int entry_cmp (const void *a, const void *b)
{
    const struct limit_entry *x = a, *y = b;
    static const char order[] = "oug";

    if (x->kind != y->kind)
        return (int)(strchr (order, x->kind) - strchr (order, y->kind));
    return strcmp (x->name, y->name);
}

void limit_list_format (const struct limit_list *l, char *buf, size_t len)
{
    struct limit_entry *v;
    size_t used = 0;

    buf[0] = '\0';
    if (!l || len == 0)
        return;
    v = xzalloc ((l->n ? l->n : 1) * sizeof (*v));
    memcpy (v, l->e, l->n * sizeof (*v));
    qsort (v, l->n, sizeof (*v), entry_cmp);
    for (int i = 0; i < l->n && used < len; i++) {
        char value[32];
        if (l->is_size)
            resource_format_size (v[i].value, value, sizeof (value));
        else
            snprintf (value, sizeof (value), "%lld", (long long)v[i].value);
        used += snprintf (buf + used, len - used, "%s[%c:%s=%s]", i ? ", " : "",
                          v[i].kind, v[i].name, value);
    }
    free (v);
}

struct limit_list *limit_list_merge (const struct limit_list *l,
                                     const struct limit_list *add, int op,
                                     struct hpcq_error *err)
{
    int n = (l ? l->n : 0) + add->n;
    struct limit_list *out = list_new (n, add->is_size);

    for (int i = 0; l && i < l->n; i++)
        out->e[out->n++] = l->e[i];
    for (int i = 0; i < add->n; i++) {
        if (op == '+') {
            list_put (out, &add->e[i]);
            continue;
        }
        for (int k = 0; k < out->n; k++) {
            if (out->e[k].kind == add->e[i].kind
                && strcmp (out->e[k].name, add->e[i].name) == 0) {
                out->e[k] = out->e[--out->n];
                break;
            }
        }
    }
    if (out->n > LIMIT_MAX_ENTRIES) {
        free (out);
        errno = EINVAL;
        errprintf (err, "Illegal attribute or resource value: too many limits");
        return NULL;
    }
    return out;
}
