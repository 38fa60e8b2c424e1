/* stage.c - see stage.h */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/stage.h"

#define invalid(err, ...) errprintf_code (err, EINVAL, __VA_ARGS__)

static int stage_one (const char *item, size_t len, struct stage_file *f,
                      struct hpcq_error *err)
{
    const char *at = memchr (item, '@', len), *colon;

    if (!at || !(colon = memchr (at, ':', len - (at - item))))
        return invalid (
            err, "invalid staging entry '%.*s' (want local_file@host:remote_file)",
            (int)len, item);
    if (at == item || colon == at + 1 || colon + 1 == item + len)
        return invalid (err,
                        "invalid staging entry '%.*s' (a path or the host is empty)",
                        (int)len, item);
    if ((size_t)(at - item) >= sizeof (f->local)
        || (size_t)(colon - at - 1) >= sizeof (f->host)
        || (size_t)(item + len - colon - 1) >= sizeof (f->remote))
        return invalid (err, "staging entry '%.*s' is too long", (int)len, item);
    snprintf (f->local, sizeof (f->local), "%.*s", (int)(at - item), item);
    snprintf (f->host, sizeof (f->host), "%.*s", (int)(colon - at - 1), at + 1);
    snprintf (f->remote, sizeof (f->remote), "%.*s", (int)(item + len - colon - 1),
              colon + 1);
    return 0;
}

int stage_parse (const char *list, struct stage_file *out, int max,
                 struct hpcq_error *err)
{
    int n = 0;

    if (!list || !*list)
        return invalid (err, "empty staging list");
    for (const char *p = list;;) {
        size_t len = strcspn (p, ",");
        if (n == max)
            return invalid (err, "more than %d files in a staging list", max);
        if (stage_one (p, len, &out[n++], err) < 0)
            return -1;
        if (!p[len])
            return n;
        p += len + 1;
    }
}
