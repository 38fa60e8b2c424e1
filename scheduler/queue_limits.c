/* queue_limits.c - see queue_limits.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/resource.h"
#include "common/util.h"
#include "scheduler/queue_limits.h"

const struct queue_limits queue_limits_none = { -1, -1, -1, -1 };

const char *const queue_limits_names[] = { "walltime", "mem", "ncpus", "ngpus", NULL };

int queue_limits_index (const char *name)
{
    for (int i = 0; queue_limits_names[i]; i++)
        if (strcasecmp (name, queue_limits_names[i]) == 0)
            return i;
    return -1;
}

int queue_limits_set (struct queue_limits *l, int which, const char *value,
                      struct hpcq_error *err)
{
    int64_t v;

    switch (which) {
    case 0:
        if (resource_parse_walltime (value, &l->walltime, err) < 0)
            return -1;
        return 0;
    case 1:
        if (resource_parse_size (value, &l->mem, err) < 0)
            return -1;
        return 0;
    default:
        if (util_parse_i64 (value, 0, 1000000, &v) < 0) {
            return errprintf (err, "Illegal attribute or resource value: %s=%s",
                              queue_limits_names[which], value);
        }
        if (which == 2)
            l->ncpus = (int)v;
        else
            l->ngpus = (int)v;
        return 0;
    }
}

void queue_limits_unset (struct queue_limits *l, int which)
{
    switch (which) {
    case 0: l->walltime = -1; break;
    case 1: l->mem = -1; break;
    case 2: l->ncpus = -1; break;
    default: l->ngpus = -1; break;
    }
}

/* One limit as text into buf; 0 if it is not set. */
int queue_limits_format (const struct queue_limits *l, int which, char *buf, int len)
{
    switch (which) {
    case 0:
        if (l->walltime < 0)
            return 0;
        resource_format_walltime (l->walltime, buf, len);
        return 1;
    case 1:
        if (l->mem < 0)
            return 0;
        resource_format_size (l->mem, buf, len);
        return 1;
    case 2:
        if (l->ncpus < 0)
            return 0;
        snprintf (buf, len, "%d", l->ncpus);
        return 1;
    default:
        if (l->ngpus < 0)
            return 0;
        snprintf (buf, len, "%d", l->ngpus);
        return 1;
    }
}

int queue_limits_to_text (const struct queue_limits *l, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; queue_limits_names[i]; i++) {
        char v[64];
        if (!queue_limits_format (l, i, v, sizeof (v)))
            continue;
        used += snprintf (buf + used, len - used, "%s%s=%s", used ? "," : "",
                          queue_limits_names[i], v);
        if (used >= len) {
            errno = ENOSPC;
            return -1;
        }
    }
    return 0;
}

int queue_limits_from_text (const char *text, struct queue_limits *l,
                            struct hpcq_error *err)
{
    char *copy = xstrdup (text), *save = NULL, *item;
    int rc = 0;

    *l = queue_limits_none;
    for (item = strtok_r (copy, ",", &save); item && rc == 0;
         item = strtok_r (NULL, ",", &save)) {
        char *eq = strchr (item, '=');
        int which;
        if (!eq) {
            errno = EINVAL;
            rc = errprintf (err, "malformed resource list '%s'", text);
            break;
        }
        *eq = '\0';
        if ((which = queue_limits_index (item)) < 0) {
            errno = EINVAL;
            rc = errprintf (err, "Unknown resource %s", item);
            break;
        }
        rc = queue_limits_set (l, which, eq + 1, err);
    }
    free (copy);
    return rc;
}
